import { bytesToHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { devPrivateKey } from "./dev-keys.js";

const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

describe("devPrivateKey", () => {
  it("derives the keys anvil and viem derive from a mnemonic", () => {
    // anvil's first account.
    expect(bytesToHex(devPrivateKey(ANVIL_MNEMONIC, 0))).toBe(
      "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    );
    const other = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    for (const index of [0, 1, 7, 42]) {
      for (const mnemonic of [ANVIL_MNEMONIC, other]) {
        const viem = mnemonicToAccount(mnemonic, { addressIndex: index }).getHdKey().privateKey!;
        expect(bytesToHex(devPrivateKey(mnemonic, index))).toBe(bytesToHex(viem));
      }
    }
  });
});
