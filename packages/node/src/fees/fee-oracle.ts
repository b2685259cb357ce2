import type { Block } from "@ethereumjs/block";
import type { Chain } from "../chain/chain.js";
import { effectiveTip } from "../txpool/fees.js";

/** The priority fee suggested to senders: 1 gwei. */
const SUGGESTED_TIP = 1_000_000_000n;
/** Most blocks one fee history covers, as in geth. */
const MAX_FEE_HISTORY_BLOCKS = 1024n;

/** `eth_feeHistory`'s answer before hex encoding: one entry per block, fees one block further. */
export interface FeeHistory {
  /** The first block covered; 0 when none is. */
  readonly oldestBlock: bigint;
  /** Per block, then the base fee of the block after the newest. */
  readonly baseFeePerGas: readonly bigint[];
  readonly gasUsedRatio: readonly number[];
  /** Per block, then the blob base fee of the block after the newest. */
  readonly baseFeePerBlobGas: readonly bigint[];
  readonly blobGasUsedRatio: readonly number[];
  /** Per block, the tip at each requested percentile of its gas; absent when none was requested. */
  readonly reward?: readonly (readonly bigint[])[];
}

/**
 * What senders should pay, from the chain: the suggested tip, gas price and blob base fee of the next
 * block, and the fee history of past blocks (`eth_gasPrice`, `eth_maxPriorityFeePerGas`,
 * `eth_blobBaseFee`, `eth_feeHistory`, and the fee defaults of the transaction filler).
 */
export class FeeOracle {
  constructor(private readonly chain: Chain) {}

  /** The priority fee per gas suggested to senders. */
  suggestedTip(): bigint {
    return SUGGESTED_TIP;
  }

  /** A gas price that lands in the next block: its base fee plus the suggested tip. */
  gasPrice(): bigint {
    return this.chain.head.header.calcNextBaseFee() + this.suggestedTip();
  }

  /** The blob base fee of the next block. */
  blobBaseFee(): bigint {
    return this.chain.head.header.calcNextBlobGasPrice(this.chain.common);
  }

  /**
   * The fee history of up to `count` (at most 1,024) blocks ending at `newest`, with the tips at the
   * given `percentiles` (ascending, 0..100) of each block's gas when they are given.
   */
  history(count: bigint, newest: Block, percentiles: readonly number[] | undefined): FeeHistory {
    const wanted = count > MAX_FEE_HISTORY_BLOCKS ? MAX_FEE_HISTORY_BLOCKS : count;
    const lastNumber = newest.header.number;
    const blocks = wanted > lastNumber + 1n ? lastNumber + 1n : wanted;
    const oldest = lastNumber - blocks + 1n;
    const baseFeePerGas: bigint[] = [];
    const gasUsedRatio: number[] = [];
    const baseFeePerBlobGas: bigint[] = [];
    const blobGasUsedRatio: number[] = [];
    const reward: bigint[][] = [];
    const common = this.chain.common;
    const maxBlobGas = Number(common.param("maxBlobGasPerBlock") ?? 0n);
    for (let n = oldest; n <= lastNumber && blocks > 0n; n++) {
      const block = this.chain.store.blockByNumber(n)!;
      const header = block.header;
      baseFeePerGas.push(header.baseFeePerGas ?? 0n);
      gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit));
      // Blocks before Cancun have no blob fee market: geth reports a blob base fee and ratio of 0.
      const hasBlobs = header.excessBlobGas !== undefined;
      baseFeePerBlobGas.push(hasBlobs ? header.getBlobGasPrice() : 0n);
      blobGasUsedRatio.push(hasBlobs && maxBlobGas > 0 ? Number(header.blobGasUsed ?? 0n) / maxBlobGas : 0);
      if (percentiles) reward.push(this.rewards(block, percentiles));
    }
    if (blocks > 0n) {
      const next = newest.header;
      baseFeePerGas.push(next.baseFeePerGas === undefined ? 0n : next.calcNextBaseFee());
      baseFeePerBlobGas.push(next.excessBlobGas === undefined ? 0n : next.calcNextBlobGasPrice(common));
    }
    return {
      oldestBlock: blocks > 0n ? oldest : 0n,
      baseFeePerGas,
      gasUsedRatio,
      baseFeePerBlobGas,
      blobGasUsedRatio,
      ...(percentiles ? { reward } : {}),
    };
  }

  /** The tips paid in `block` at each of `percentiles` of its gas used (0 for an empty block). */
  private rewards(block: Block, percentiles: readonly number[]): bigint[] {
    const baseFee = block.header.baseFeePerGas ?? 0n;
    if (block.transactions.length === 0) return percentiles.map(() => 0n);
    const receipts = this.chain.store.receipts(block.hash()) ?? [];
    const tips = block.transactions
      .map((tx, i) => ({ tip: effectiveTip(tx, baseFee), gas: receipts[i]?.gasUsed ?? 0n }))
      .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
    const totalGas = block.header.gasUsed;
    return percentiles.map((p) => {
      const threshold = (Number(totalGas) * p) / 100;
      let sum = 0;
      for (const entry of tips) {
        sum += Number(entry.gas);
        if (sum >= threshold) return entry.tip;
      }
      return tips[tips.length - 1]!.tip;
    });
  }
}
