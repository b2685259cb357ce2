import {
  Address,
  BlockNumberOrTag,
  describeIssue,
  InvalidParamsError,
  MethodNotFoundError,
} from "@strata/protocol";
import { KNOWN_NETWORKS } from "../config.js";
import type { UpstreamPool } from "../upstream/upstream-pool.js";
import { callUpstream, unwrap } from "./upstream-rpc.js";

/** Native currency of Strata networks (DECISIONS.md "Name and networks"). */
export const NATIVE_CURRENCY = { name: "Strata", symbol: "STRA", decimals: 18 } as const;

/** `api_getBalance` result. */
export interface ApiBalance {
  readonly address: string;
  readonly balance: string;
  readonly formatted: string;
  readonly symbol: string;
  readonly blockNumber: string;
}

/** `api_getChainInfo` result. */
export interface ApiChainInfo {
  readonly chainId: number;
  readonly chainIdHex: string;
  readonly network: string;
  readonly nativeCurrency: typeof NATIVE_CURRENCY;
  readonly blockNumber: string;
  readonly blockHash: string;
  readonly blockTime: number;
  readonly baseFeePerGas: string | null;
  readonly validatorCount: number | null;
  readonly clientVersion: string;
  readonly syncing: unknown;
}

interface BlockHeader {
  number: string;
  hash: string;
  baseFeePerGas?: string;
}

/** True for the methods the gateway answers itself. */
export function isApiMethod(method: string): boolean {
  return method.startsWith("api_");
}

/** Runs an `api_*` method; throws an `RpcError` for bad params, unknown methods or node errors. */
export async function callApiMethod(
  pool: UpstreamPool,
  method: string,
  params: readonly unknown[],
): Promise<unknown> {
  switch (method) {
    case "api_getBalance":
      return getBalance(pool, params);
    case "api_getChainInfo":
      return getChainInfo(pool, params);
    default:
      throw new MethodNotFoundError(method);
  }
}

/** `api_getBalance([address, blockTag?])`: the balance in wei and in STRA at one block. */
async function getBalance(pool: UpstreamPool, params: readonly unknown[]): Promise<ApiBalance> {
  if (params.length > 2) throw new InvalidParamsError("too many arguments, want at most 2");
  if (params[0] === undefined || params[0] === null)
    throw new InvalidParamsError("missing value for required argument 0");
  const address = Address.safeParse(params[0]);
  if (!address.success) throw new InvalidParamsError(`invalid argument 0: ${describeIssue(address.error)}`);
  const tag = params[1] ?? "latest";
  const block = BlockNumberOrTag.safeParse(tag);
  if (!block.success) throw new InvalidParamsError(`invalid argument 1: ${describeIssue(block.error)}`);
  const [balance, header] = await callUpstream(pool, [
    { method: "eth_getBalance", params: [address.data, tag] },
    { method: "eth_getBlockByNumber", params: [tag, false] },
  ]);
  const wei = unwrap<string>(balance);
  const head = unwrap<BlockHeader | null>(header);
  return {
    address: address.data,
    balance: wei,
    formatted: formatUnits(BigInt(wei), NATIVE_CURRENCY.decimals),
    symbol: NATIVE_CURRENCY.symbol,
    blockNumber: head?.number ?? (typeof tag === "string" ? tag : "0x0"),
  };
}

/** `api_getChainInfo([])`: chain identity, head and node status in one call. */
async function getChainInfo(pool: UpstreamPool, params: readonly unknown[]): Promise<ApiChainInfo> {
  if (params.length > 0) throw new InvalidParamsError("too many arguments, want at most 0");
  const [chainId, head, clientVersion, syncing, validators] = await callUpstream(pool, [
    { method: "eth_chainId", params: [] },
    { method: "eth_getBlockByNumber", params: ["latest", false] },
    { method: "web3_clientVersion", params: [] },
    { method: "eth_syncing", params: [] },
    { method: "svc_getValidators", params: [] },
  ]);
  const id = Number.parseInt(unwrap<string>(chainId), 16);
  const header = unwrap<BlockHeader>(head);
  const known = (KNOWN_NETWORKS as Record<number, { name: string; blockTimeSeconds: number }>)[id];
  return {
    chainId: id,
    chainIdHex: `0x${id.toString(16)}`,
    network: known?.name ?? `chain-${id}`,
    nativeCurrency: NATIVE_CURRENCY,
    blockNumber: header.number,
    blockHash: header.hash,
    blockTime: known?.blockTimeSeconds ?? 0,
    baseFeePerGas: header.baseFeePerGas ?? null,
    validatorCount: Array.isArray(validators) ? validators.length : null,
    clientVersion: unwrap<string>(clientVersion),
    syncing: unwrap(syncing),
  };
}

/** `wei` as a decimal string of whole units, without trailing zeros (`1.5`, `10000`). */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const fraction = (abs % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
