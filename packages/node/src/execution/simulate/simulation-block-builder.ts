import { type Block, createBlock } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { type BuildBlockOpts, type RunTxResult, runTx, type VM } from "@ethereumjs/vm";
import { type BuilderState, StreamingBlockBuilder } from "../block/streaming-block-builder.js";

/**
 * A block builder for `eth_simulateV1`: calls run like the block's transactions (system calls,
 * withdrawals, requests and the state root come from the stock builder), but outside validation
 * mode their nonces are not checked, and the caller has already checked the block's gas.
 */
export class SimulationBlockBuilder extends StreamingBlockBuilder {
  private context: Block | undefined;
  private zeroFeeContext: Block | undefined;

  /** Creates a builder and runs the block's start-of-block system calls. */
  static override async start(vm: VM, opts: BuildBlockOpts): Promise<SimulationBlockBuilder> {
    const builder = new SimulationBlockBuilder(vm, opts);
    await builder.initState();
    return builder;
  }

  /** Gas used by the calls so far. */
  get used(): bigint {
    return (this as unknown as BuilderState).gasUsed;
  }

  /**
   * Runs one call as the block's next transaction; throws the VM's error when it cannot be included.
   * `zeroBaseFee` runs it as if the block's base fee were zero (a call offering no fee, outside
   * validation mode). `blobBaseFee` replaces the blob base fee the block's excess blob gas implies.
   */
  async runCall(
    tx: TypedTransaction,
    mode: { validate: boolean; zeroBaseFee: boolean; blobBaseFee?: bigint | undefined },
  ): Promise<RunTxResult> {
    const state = this as unknown as BuilderState;
    state.checkStatus();
    if (!state.checkpointed) {
      await state.vm.evm.journal.checkpoint();
      state.checkpointed = true;
    }
    // Unfrozen, so that a blob base fee override can replace the header's blob gas price.
    const opts = { ...state.blockOpts, freeze: false };
    this.context ??= createBlock({ header: { ...state.headerData, gasUsed: 0n } }, opts);
    if (mode.zeroBaseFee && state.headerData.baseFeePerGas !== undefined) {
      this.zeroFeeContext ??= createBlock(
        { header: { ...state.headerData, gasUsed: 0n, baseFeePerGas: 0n } },
        opts,
      );
    }
    const block = mode.zeroBaseFee ? (this.zeroFeeContext ?? this.context) : this.context;
    const { blobBaseFee } = mode;
    if (blobBaseFee !== undefined) block.header.getBlobGasPrice = () => blobBaseFee;
    const result = await runTx(state.vm, {
      tx,
      block,
      blockGasUsed: state.gasUsed,
      skipNonce: !mode.validate,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    });
    state.transactions.push(tx);
    state.transactionResults.push(result);
    state.gasUsed += result.blockGasSpent;
    state.blobGasUsed += result.blobGasUsed ?? 0n;
    state._minerValue += result.minerValue;
    return result;
  }
}
