import type { Block } from "@ethereumjs/block";
import { InvalidParamsError, toQuantity } from "@strata/protocol";
import { effectiveGasPrice } from "../../format/transaction.js";
import { defineMethods } from "../../registry.js";
import { findBlock, type RpcServices } from "../../services.js";

const DEFAULT_TIP = 1_000_000_000n;
const MAX_FEE_HISTORY_BLOCKS = 1024n;

/** The priority fee suggested to senders: 1 gwei. */
export function suggestedTip(): bigint {
  return DEFAULT_TIP;
}

function rewards(services: RpcServices, block: Block, percentiles: readonly number[]): string[] {
  const baseFee = block.header.baseFeePerGas ?? 0n;
  if (block.transactions.length === 0) return percentiles.map(() => "0x0");
  const receipts = services.chain.store.receipts(block.hash()) ?? [];
  const tips = block.transactions
    .map((tx, i) => ({ tip: effectiveGasPrice(tx, baseFee) - baseFee, gas: receipts[i]?.gasUsed ?? 0n }))
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const totalGas = block.header.gasUsed;
  return percentiles.map((p) => {
    const threshold = (Number(totalGas) * p) / 100;
    let sum = 0;
    for (const entry of tips) {
      sum += Number(entry.gas);
      if (sum >= threshold) return toQuantity(entry.tip);
    }
    return toQuantity(tips[tips.length - 1]!.tip);
  });
}

/** Gas price suggestions and fee history. */
export const feeMethods = defineMethods({
  eth_gasPrice: (_, services) => toQuantity(services.chain.head.header.calcNextBaseFee() + suggestedTip()),
  eth_maxPriorityFeePerGas: () => toQuantity(suggestedTip()),
  eth_blobBaseFee: (_, services) =>
    toQuantity(services.chain.head.header.calcNextBlobGasPrice(services.chain.common)),
  eth_feeHistory: ([count, newest, percentiles], services) => {
    const last = findBlock(services, newest);
    if (!last) throw new InvalidParamsError("invalid argument 1: block not found");
    if (percentiles) {
      for (let i = 1; i < percentiles.length; i++) {
        if (percentiles[i]! < percentiles[i - 1]!) {
          throw new InvalidParamsError(`invalid argument 2: reward percentiles must be sorted`);
        }
      }
    }
    const wanted = count > MAX_FEE_HISTORY_BLOCKS ? MAX_FEE_HISTORY_BLOCKS : count;
    const lastNumber = last.header.number;
    const blocks = wanted > lastNumber + 1n ? lastNumber + 1n : wanted;
    const oldest = lastNumber - blocks + 1n;
    const baseFeePerGas: string[] = [];
    const gasUsedRatio: number[] = [];
    const baseFeePerBlobGas: string[] = [];
    const blobGasUsedRatio: number[] = [];
    const reward: string[][] = [];
    const common = services.chain.common;
    const maxBlobGas = Number(common.param("maxBlobGasPerBlock") ?? 0n);
    for (let n = oldest; n <= lastNumber && blocks > 0n; n++) {
      const block = services.chain.store.blockByNumber(n)!;
      const header = block.header;
      baseFeePerGas.push(toQuantity(header.baseFeePerGas ?? 0n));
      gasUsedRatio.push(Number(header.gasUsed) / Number(header.gasLimit));
      // Blocks before Cancun have no blob fee market: geth reports a blob base fee and ratio of 0.
      const hasBlobs = header.excessBlobGas !== undefined;
      baseFeePerBlobGas.push(toQuantity(hasBlobs ? header.getBlobGasPrice() : 0n));
      blobGasUsedRatio.push(hasBlobs && maxBlobGas > 0 ? Number(header.blobGasUsed ?? 0n) / maxBlobGas : 0);
      if (percentiles) reward.push(rewards(services, block, percentiles));
    }
    if (blocks > 0n) {
      const next = last.header;
      baseFeePerGas.push(toQuantity(next.baseFeePerGas === undefined ? 0n : next.calcNextBaseFee()));
      baseFeePerBlobGas.push(
        toQuantity(next.excessBlobGas === undefined ? 0n : next.calcNextBlobGasPrice(common)),
      );
    }
    return {
      oldestBlock: toQuantity(blocks > 0n ? oldest : 0n),
      baseFeePerGas,
      gasUsedRatio,
      baseFeePerBlobGas,
      blobGasUsedRatio,
      ...(percentiles ? { reward } : {}),
    };
  },
});
