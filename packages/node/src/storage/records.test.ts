import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createLegacyTx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { formatReceipt } from "../rpc/format/receipt.js";
import { decodeReceipts, encodeReceipts, type StoredReceipt } from "./records.js";

const KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const POST_STATE = new Uint8Array(32).fill(0x9d);

function receipt(overrides: Partial<StoredReceipt> = {}): StoredReceipt {
  return {
    type: 0,
    status: 1,
    cumulativeGasUsed: 21_000n,
    gasUsed: 21_000n,
    logs: [],
    sender: new Uint8Array(20).fill(1),
    contractAddress: undefined,
    txHash: new Uint8Array(32).fill(2),
    ...overrides,
  };
}

describe("stored receipts", () => {
  it("keep the post-state root of receipts before Byzantium", () => {
    const [decoded] = decodeReceipts(encodeReceipts([receipt({ postState: POST_STATE })]));
    expect(decoded!.postState).toEqual(POST_STATE);
  });

  it("read receipts written before the post-state field existed (eight items), and write those the same way", () => {
    const plain = receipt();
    const encoded = encodeReceipts([plain]);
    expect((RLP.decode(encoded) as unknown[][])[0]).toHaveLength(8);
    const [decoded] = decodeReceipts(encoded);
    expect(decoded).toEqual(plain);
    expect("postState" in decoded!).toBe(false);
  });

  it("format as `root` without `status` before Byzantium, and `status` without `root` after", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.SpuriousDragon });
    const tx = createLegacyTx(
      { nonce: 0n, to: "0x00000000000000000000000000000000000000aa", gasLimit: 21_000n, gasPrice: 1n },
      { common },
    ).sign(KEY);
    const block = createBlock(
      { header: { number: 3n, gasLimit: 8_000_000n }, transactions: [tx] },
      { common },
    );
    const old = formatReceipt(block, [receipt({ postState: POST_STATE })], 0);
    expect(old.root).toBe(bytesToHex(POST_STATE));
    expect(old).not.toHaveProperty("status");
    const later = formatReceipt(block, [receipt()], 0);
    expect(later.status).toBe("0x1");
    expect(later).not.toHaveProperty("root");
  });
});
