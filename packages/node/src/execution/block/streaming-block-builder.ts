import { Block, createBlock } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import {
  BlockBuilder,
  type BuildBlockOpts,
  encodeReceipt,
  type RunTxResult,
  runTx,
  type VM,
} from "@ethereumjs/vm";
import { keccak256 } from "../../crypto/keccak.js";
import { orderedTrieRoot } from "./ordered-trie-root.js";
import { runValueTransfer } from "./value-transfer.js";

/** The BlockBuilder fields the streaming and simulating builders maintain (private in @ethereumjs/vm's typings). */
export interface BuilderState {
  vm: VM;
  checkpointed: boolean;
  headerData: Record<string, unknown>;
  blockOpts: NonNullable<BuildBlockOpts["blockOpts"]>;
  transactions: TypedTransaction[];
  transactionResults: RunTxResult[];
  gasUsed: bigint;
  blobGasUsed: bigint;
  _minerValue: bigint;
  checkStatus(): void;
}

/**
 * A BlockBuilder whose `addTransaction` runs each transaction against one execution header made
 * once per block. The stock builder re-creates the block, and so every transaction already in it,
 * before each transaction: quadratic in the block's size. The transactions and receipts roots are
 * built in one pass over the sorted keys ({@link orderedTrieRoot}) instead of one trie insertion per
 * entry. Plain value transfers skip the EVM ({@link runValueTransfer}). System calls (EIP-4788,
 * EIP-2935), the state root, requests and sealing still come from the stock builder. Blob transactions and the EIPs whose
 * accounting the stock method tracks per transaction (EIP-8037, EIP-7928) use the stock method.
 */
export class StreamingBlockBuilder extends BlockBuilder {
  private executionBlock: Block | undefined;
  private roots: { transactions: Uint8Array; receipts: Uint8Array } | undefined;

  /** Creates a builder and runs the block's start-of-block system calls, like `buildBlock`. */
  static async start(vm: VM, opts: BuildBlockOpts): Promise<StreamingBlockBuilder> {
    const builder = new StreamingBlockBuilder(vm, opts);
    await builder.initState();
    return builder;
  }

  /**
   * Seals the block like the stock builder, but keeps the transaction objects already executed
   * (the stock `build` re-creates each of them from its fields, which costs as much as decoding it).
   */
  override async build(sealOpts?: Parameters<BlockBuilder["build"]>[0]): ReturnType<BlockBuilder["build"]> {
    const state = this as unknown as BuilderState;
    const transactions = state.transactions;
    this.roots = { transactions: await this.transactionsTrie(), receipts: await this.receiptTrie() };
    state.transactions = [];
    try {
      const built = await super.build(sealOpts);
      const { header, withdrawals } = built.block;
      return { ...built, block: new Block(header, transactions, [], withdrawals, state.blockOpts) };
    } finally {
      state.transactions = transactions;
      this.roots = undefined;
    }
  }

  override async transactionsTrie(): Promise<Uint8Array> {
    if (this.roots) return this.roots.transactions;
    const state = this as unknown as BuilderState;
    return orderedTrieRoot(
      state.transactions.map((tx) => tx.serialize()),
      keccak256,
    );
  }

  override async receiptTrie(): Promise<Uint8Array> {
    if (this.roots) return this.roots.receipts;
    const state = this as unknown as BuilderState;
    return orderedTrieRoot(
      state.transactionResults.map((result, i) => encodeReceipt(result.receipt, state.transactions[i]!.type)),
      keccak256,
    );
  }

  /**
   * Runs `run` (which adds transactions) and then takes back what it added, state and block
   * accounting alike: the builder stands as it stood before (a traced transaction whose replay
   * goes on from before it).
   */
  async withoutKeeping<T>(run: () => Promise<T>): Promise<T> {
    const state = this as unknown as BuilderState;
    const { gasUsed, blobGasUsed, _minerValue: minerValue } = state;
    const count = state.transactions.length;
    const stateManager = state.vm.stateManager;
    await stateManager.checkpoint();
    try {
      return await run();
    } finally {
      await stateManager.revert();
      state.transactions.length = count;
      state.transactionResults.length = count;
      state.gasUsed = gasUsed;
      state.blobGasUsed = blobGasUsed;
      state._minerValue = minerValue;
    }
  }

  override async addTransaction(tx: TypedTransaction): Promise<RunTxResult> {
    const state = this as unknown as BuilderState;
    const common = state.vm.common;
    if (tx.type === 3 || common.isActivatedEIP(8037) || common.isActivatedEIP(7928)) {
      return super.addTransaction(tx);
    }
    state.checkStatus();
    if (!state.checkpointed) {
      await state.vm.evm.journal.checkpoint();
      state.checkpointed = true;
    }
    const gasLimit = BigInt(state.headerData.gasLimit as bigint);
    if (tx.gasLimit > gasLimit - state.gasUsed) {
      throw new Error("tx has a higher gas limit than the remaining gas in the block");
    }
    this.executionBlock ??= createBlock({ header: { ...state.headerData, gasUsed: 0n } }, state.blockOpts);
    const result =
      (await runValueTransfer(state.vm, tx, this.executionBlock, state.gasUsed)) ??
      (await runTx(state.vm, {
        tx,
        block: this.executionBlock,
        blockGasUsed: state.gasUsed,
        skipHardForkValidation: true,
      }));
    state.transactions.push(tx);
    state.transactionResults.push(result);
    state.gasUsed += result.blockGasSpent;
    state._minerValue += result.minerValue;
    return result;
  }
}
