import { type HDAccount, mnemonicToAccount } from "viem/accounts";

/** The well-known development mnemonic; anvil and Strata's dev network fund its first 10 accounts. */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
export const DEV_ACCOUNT_COUNT = 10;
/** Address of dev account 0 (m/44'/60'/0'/0/0). */
export const DEV_ACCOUNT_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

let cached: HDAccount[] | undefined;

export function devAccounts(): HDAccount[] {
  if (!cached) {
    cached = Array.from({ length: DEV_ACCOUNT_COUNT }, (_, addressIndex) =>
      mnemonicToAccount(DEV_MNEMONIC, { addressIndex }),
    );
    if (cached[0]?.address !== DEV_ACCOUNT_0) {
      throw new Error(`mnemonic derivation mismatch: account 0 is ${cached[0]?.address}`);
    }
  }
  return cached;
}

export function devAccount0(): HDAccount {
  return devAccounts()[0]!;
}
