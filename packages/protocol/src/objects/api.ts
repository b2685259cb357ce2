import { z } from "zod";
import { HexText } from "./hex-text.js";

/** Native currency of Strata networks (DECISIONS.md "Name and networks"). */
export const NATIVE_CURRENCY = { name: "Strata", symbol: "STRA", decimals: 18 } as const;

/** `api_getBalance` result: the balance in wei and in whole units at one block. */
export const ApiBalance = z.object({
  address: HexText,
  /** Hex wei. */
  balance: HexText,
  /** Decimal whole units (`"1.5"`). */
  formatted: z.string(),
  symbol: z.string(),
  blockNumber: z.string(),
});
/** `api_getBalance`'s result on the wire. */
export type ApiBalance = z.infer<typeof ApiBalance>;

/** `api_getChainInfo` result: chain identity, head and node status. */
export const ApiChainInfo = z.object({
  chainId: z.number(),
  chainIdHex: z.string(),
  network: z.string(),
  nativeCurrency: z.object({ name: z.string(), symbol: z.string(), decimals: z.number() }),
  blockNumber: HexText,
  blockHash: HexText,
  /** Seconds between blocks (0 when the network is not known). */
  blockTime: z.number(),
  baseFeePerGas: HexText.nullable(),
  validatorCount: z.number().nullable(),
  clientVersion: z.string(),
  /** `eth_syncing`'s answer, passed on. */
  syncing: z.unknown(),
});
/** `api_getChainInfo`'s result on the wire. */
export type ApiChainInfo = z.infer<typeof ApiChainInfo>;
