import { randomBytes } from "node:crypto";
import { type BlockHeader, createBlockHeader } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { describe, expect, it } from "vitest";
import { headerDataOf } from "./header-data.js";

/** A header with a value of its own (none a default) in every field its rules have. */
function headerAt(hardfork: Hardfork): BlockHeader {
  const common = new Common({ chain: Mainnet, hardfork });
  const eip = (n: number) => common.isActivatedEIP(n);
  return createBlockHeader(
    {
      parentHash: randomBytes(32),
      uncleHash: randomBytes(32),
      coinbase: randomBytes(20),
      stateRoot: randomBytes(32),
      transactionsTrie: randomBytes(32),
      receiptTrie: randomBytes(32),
      logsBloom: randomBytes(256),
      difficulty: 0n,
      number: 19_000_001n,
      gasLimit: 36_000_000n,
      gasUsed: 12_345_678n,
      timestamp: 1_750_000_000n,
      extraData: randomBytes(32),
      mixHash: randomBytes(32),
      nonce: new Uint8Array(8),
      ...(eip(1559) ? { baseFeePerGas: 987_654_321n } : {}),
      ...(eip(4895) ? { withdrawalsRoot: randomBytes(32) } : {}),
      ...(eip(4844) ? { blobGasUsed: 393_216n, excessBlobGas: 1_234_567n } : {}),
      ...(eip(4788) ? { parentBeaconBlockRoot: randomBytes(32) } : {}),
      ...(eip(7685) ? { requestsHash: randomBytes(32) } : {}),
    },
    { common, skipConsensusFormatValidation: true },
  );
}

describe("headerDataOf", () => {
  it.each([Hardfork.Berlin, Hardfork.London, Hardfork.Shanghai, Hardfork.Cancun, Hardfork.Prague])(
    "makes the same header again under %s rules, field for field",
    (hardfork) => {
      const header = headerAt(hardfork);
      const again = createBlockHeader(headerDataOf(header), {
        common: header.common,
        skipConsensusFormatValidation: true,
      });
      expect(again.toJSON()).toEqual(header.toJSON());
      expect(again.hash()).toEqual(header.hash());
    },
  );

  it("gives the header a call runs in the same fields as a copy through JSON, the base fee set to zero", () => {
    for (const hardfork of [Hardfork.London, Hardfork.Cancun, Hardfork.Prague]) {
      const header = headerAt(hardfork);
      const options = { common: header.common, skipConsensusFormatValidation: true };
      const direct = createBlockHeader({ ...headerDataOf(header), baseFeePerGas: 0n }, options);
      const viaJson = createBlockHeader({ ...header.toJSON(), baseFeePerGas: 0n }, options);
      expect(direct.toJSON()).toEqual(viaJson.toJSON());
      expect(direct.baseFeePerGas).toBe(0n);
    }
  });
});
