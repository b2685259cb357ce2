import { createRequire } from "node:module";
import { createBlock } from "@ethereumjs/block";
import { createCommonFromGethGenesis } from "@ethereumjs/common";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import { describe, expect, it, vi } from "vitest";
import { loadNetwork } from "../config/network.js";
import {
  addressOfPrivateKey,
  DEFAULT_VANITY,
  hasSeal,
  recoverSealer,
  SEAL_LENGTH,
  sealBlock,
  sealHash,
  withExtraData,
} from "./seal.js";

const network = loadNetwork("dev");
const common = createCommonFromGethGenesis(network.genesis as never, { chain: "dev" });
common.setHardforkBy({ blockNumber: 0n, timestamp: 0n });
const keyA = new Uint8Array(32).fill(1);
const keyB = new Uint8Array(32).fill(2);

function unsealed(coinbase: string) {
  return createBlock(
    {
      header: {
        number: 1n,
        timestamp: 10n,
        gasLimit: 30_000_000n,
        baseFeePerGas: 1n,
        coinbase: coinbase as `0x${string}`,
        extraData: DEFAULT_VANITY,
      },
    },
    { common, setHardfork: false },
  );
}

describe("block seal", () => {
  it("signs the header hash with the seal removed and recovers the sealer", () => {
    const block = unsealed(addressOfPrivateKey(keyA));
    const sealed = sealBlock(block, keyA);
    expect(hasSeal(sealed.header)).toBe(true);
    expect(sealed.header.extraData).toHaveLength(32 + SEAL_LENGTH);
    expect(equalsBytes(sealHash(sealed.header), block.hash())).toBe(true);
    expect(recoverSealer(sealed.header)).toBe(addressOfPrivateKey(keyA));
  });

  it("knows the sealer of a block it sealed without recovering the seal", () => {
    const secp = createRequire(import.meta.url)("secp256k1") as {
      ecdsaRecover: (...args: unknown[]) => unknown;
    };
    const sealed = sealBlock(unsealed(addressOfPrivateKey(keyA)), keyA);
    const recover = vi.spyOn(secp, "ecdsaRecover");
    try {
      expect(recoverSealer(sealed.header)).toBe(addressOfPrivateKey(keyA));
      expect(recover).not.toHaveBeenCalled();
      // The same header as a peer sends it (another object) is recovered from its seal.
      const received = withExtraData(sealed.header, sealed.header.extraData);
      expect(recoverSealer(received)).toBe(addressOfPrivateKey(keyA));
      expect(recover).toHaveBeenCalledTimes(1);
    } finally {
      recover.mockRestore();
    }
  });

  it("makes the block hash differ by sealer", () => {
    const a = sealBlock(unsealed(addressOfPrivateKey(keyA)), keyA);
    const b = sealBlock(unsealed(addressOfPrivateKey(keyA)), keyB);
    expect(bytesToHex(a.hash())).not.toBe(bytesToHex(b.hash()));
    expect(recoverSealer(b.header)).toBe(addressOfPrivateKey(keyB));
  });

  it("no longer recovers the sealer once a sealed field changes", () => {
    const sealed = sealBlock(unsealed(addressOfPrivateKey(keyA)), keyA);
    const fields = sealed.header.raw();
    fields[11] = Uint8Array.of(11);
    const tampered = withExtraData(sealed.header, sealed.header.extraData);
    expect(recoverSealer(tampered)).toBe(addressOfPrivateKey(keyA));
    const changed = withExtraData(
      { ...sealed.header, raw: () => fields, common: sealed.header.common } as never,
      sealed.header.extraData,
    );
    expect(recoverSealer(changed)).not.toBe(addressOfPrivateKey(keyA));
  });

  it("finds no sealer without a seal or with a malformed one", () => {
    const block = unsealed(addressOfPrivateKey(keyA));
    expect(recoverSealer(block.header)).toBeUndefined();
    const garbage = withExtraData(block.header, new Uint8Array(32 + SEAL_LENGTH).fill(0xff));
    expect(recoverSealer(garbage)).toBeUndefined();
  });
});
