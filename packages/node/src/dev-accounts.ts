import { bytesToHex } from "@ethereumjs/util";
import { mnemonicToAccount } from "viem/accounts";
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
    const account = mnemonicToAccount(spec.mnemonic, { addressIndex });
    const privateKey = account.getHdKey().privateKey;
    if (!privateKey) throw new Error(`cannot derive dev account ${addressIndex}`);
    return { address: account.address.toLowerCase(), privateKey };
  });
}

/** Formats a dev account's key for display. */
export function privateKeyHex(account: DevAccount): string {
  return bytesToHex(account.privateKey);
}
