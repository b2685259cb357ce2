import { pbkdf2Sync } from "node:crypto";
import { HDKey } from "viem/accounts";

/** Master keys of the mnemonics seen so far (a network file has one; tests use a few). */
const masters = new Map<string, HDKey>();
const MAX_MASTERS = 16;

/**
 * The private key at `m/44'/60'/0'/0/<addressIndex>` of a BIP-39 mnemonic (no passphrase), as anvil,
 * Hardhat and viem's `mnemonicToAccount` derive it. The seed's 2,048 PBKDF2 rounds run once per
 * mnemonic, natively, instead of once per account.
 */
export function devPrivateKey(mnemonic: string, addressIndex: number): Uint8Array {
  let master = masters.get(mnemonic);
  if (!master) {
    const seed = pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
    master = HDKey.fromMasterSeed(seed);
    if (masters.size >= MAX_MASTERS) masters.clear();
    masters.set(mnemonic, master);
  }
  const key = master.derive(`m/44'/60'/0'/0/${addressIndex}`).privateKey;
  if (!key) throw new Error(`cannot derive the key at index ${addressIndex}`);
  return key;
}
