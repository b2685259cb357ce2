import { bytesToHex } from "@ethereumjs/util";
import { privateKeyToAddress } from "viem/accounts";
import { devPrivateKey } from "./config/dev-keys.js";
import type { NetworkFile } from "./config/network.js";

/** A development account: address and private key. */
export interface DevAccount {
  readonly address: string;
  readonly privateKey: Uint8Array;
}

/** Derives the dev network's accounts from its mnemonic (m/44'/60'/0'/0/i), as anvil and hardhat do. */
export function deriveDevAccounts(network: NetworkFile): DevAccount[] {
  const spec = network.devAccounts;
  if (!spec) return [];
  return Array.from({ length: spec.count }, (_, addressIndex) => {
    const privateKey = devPrivateKey(spec.mnemonic, addressIndex);
    return {
      address: privateKeyToAddress(bytesToHex(privateKey) as `0x${string}`).toLowerCase(),
      privateKey,
    };
  });
}

/** Formats a dev account's key for display. */
export function privateKeyHex(account: DevAccount): string {
  return bytesToHex(account.privateKey);
}
