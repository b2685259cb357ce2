import { type Block, createBlock } from "@ethereumjs/block";
import { type Common, Hardfork } from "@ethereumjs/common";
import type { ExecResult } from "@ethereumjs/evm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Address, createZeroAddress, hexToBytes } from "@ethereumjs/util";
import { createVM, type RunTxOpts, type RunTxResult, runTx, type VM } from "@ethereumjs/vm";
import type { CallRequest } from "@strata/protocol";
import { keccak256 } from "../../crypto/keccak.js";
import { BusyError, ExecutionError, RevertError, RunStoppedError } from "../../errors/domain-errors.js";
import type { BoundedStructure } from "../../metrics/bounded-structure.js";
import type { PendingContext } from "../../producer/pending-execution.js";
import { headerDataOf } from "../block/header-data.js";
import type { ChainView } from "../evm/chain-view.js";
import {
  type CancelSource,
  callerLimit,
  checkRunLimit,
  enforceRunLimits,
  limitEvm,
  type RunLimit,
  runLimit,
} from "../evm/run-limits.js";
import { OverlayStateManager } from "../state/overlay-state.js";
import { callRequestTransaction } from "./call-request-tx.js";
import { type CallResult, CallResultCache } from "./call-result-cache.js";
import { type GasNeed, GasNeedTracker } from "./gas-need.js";
import { runPlainCall } from "./plain-call.js";
import { decodeRevertReason } from "./revert-reason.js";

/** The outcome of one simulated transaction. */
export interface CallOutcome {
  readonly returnValue: Uint8Array;
  readonly gasUsed: bigint;
  readonly result: RunTxResult;
}

/** An access list with the gas the call uses with it (`eth_createAccessList`). */
export interface AccessListOutcome {
  readonly accessList: { address: string; storageKeys: string[] }[];
  readonly gasUsed: bigint;
  readonly error?: string;
}

/**
 * Somewhere else `eth_call` can run (worker threads); undefined when it cannot take this one.
 * `pending` is given when `block` is the pending block, which the other side makes from it.
 */
export interface CallOffload {
  call(
    request: CallRequest,
    block: Block,
    limit: RunLimit,
    pending?: PendingContext,
  ): Promise<CallResult | undefined>;
  /** The estimate of `request` at `block` run elsewhere; undefined when it cannot take this one. */
  estimateGas(
    request: CallRequest,
    block: Block,
    limit: RunLimit,
    pending?: PendingContext,
  ): Promise<bigint | undefined>;
  /** The access list of `request` at `block` built elsewhere; undefined when it cannot take this one. */
  createAccessList(
    request: CallRequest,
    block: Block,
    limit: RunLimit,
    pending?: PendingContext,
  ): Promise<AccessListOutcome | undefined>;
}

/** The pending blocks calls may name (see {@link PendingBlocks}). */
export interface PendingCallBlocks {
  /** What another thread needs to make `block` when it is a pending block; undefined for a stored block. */
  contextOf(block: Block): PendingContext | undefined;
  /** Whether outcomes in `block` depend on more than its hash (a stand-in for a pending block made elsewhere). */
  isStandIn(block: Block): boolean;
  /** The block to run in on this thread when no other thread takes the run. */
  localBlock(block: Block): Promise<Block>;
}

/** Options of a {@link CallExecutor}. */
export interface CallExecutorOptions {
  /** Remember call outcomes per (block, request) (default true). */
  readonly cacheResults?: boolean;
  /** Where `call` runs when it can, instead of this thread. */
  readonly offload?: CallOffload;
  /** Wall-clock time a call, estimate or access list may take (default: no limit). */
  readonly timeoutMs?: number;
  /** The pending blocks: calls in them are offloaded with the context that makes them. */
  readonly pending?: PendingCallBlocks;
}

const CALL_STIPEND = 2300n;
const ESTIMATE_ERROR_RATIO = 0.015;
const TRANSFER_GAS = 21_000n;

/**
 * Runs read-only transactions (`eth_call`, `eth_estimateGas`, `eth_createAccessList`) against the
 * state after a given block. Each run is discarded; runs are serialised, and a run that waited
 * longer than `maxQueueWaitMs` for its turn is refused instead of adding to the backlog. A request
 * that takes longer than `timeoutMs` in all stops with "execution timeout", and one whose signal is
 * aborted (its client disconnected) stops at once.
 */
export class CallExecutor {
  /** The VM calls run on, kept while the rules (the Common and its fork) stay. */
  private cached:
    | {
        root: Uint8Array;
        readonly common: Common;
        readonly hardfork: string;
        readonly vm: Promise<VM>;
        readonly overlay: OverlayStateManager;
      }
    | undefined;
  /** The rules of blocks whose fork differs from the head's, one Common per fork. */
  private readonly forkCommons = new Map<string, Common>();
  /** The rules found for the last block asked about (calls mostly target the same block). */
  private lastRules: { block: Block; head: string; rules: Common } | undefined;
  private lock: Promise<unknown> = Promise.resolve();
  private readonly results: CallResultCache | undefined;
  private readonly offload: CallOffload | undefined;
  private readonly pending: PendingCallBlocks | undefined;
  private readonly timeoutMs: number;

  constructor(
    private readonly common: Common,
    /** The (read-only) state after a block; for the head, the chain's shared cached state. */
    private readonly stateAt: (block: Block) => MerkleStateManager,
    private readonly chainView: ChainView,
    private readonly gasCap: bigint,
    private readonly maxQueueWaitMs: number,
    options: CallExecutorOptions = {},
  ) {
    this.results = options.cacheResults === false ? undefined : new CallResultCache();
    this.offload = options.offload;
    this.pending = options.pending;
    this.timeoutMs = options.timeoutMs ?? Number.POSITIVE_INFINITY;
  }

  /** The call-result cache, for the metrics (none when results are not cached). */
  boundedStructures(): BoundedStructure[] {
    return this.results?.boundedStructures() ?? [];
  }

  /**
   * Executes `request` on top of `block` and returns its return data; a revert throws
   * {@link RevertError}. Outcomes are remembered per (block, request) in a bounded cache. With an
   * offload (worker threads), calls run there whenever a worker can take them. `caller`'s signal
   * calls the run off (its client has gone).
   */
  async call(request: CallRequest, block: Block, caller?: CancelSource): Promise<Uint8Array> {
    const blockHash = block.hash();
    // A stand-in's hash does not name its state (the pool's transactions): its outcomes are not kept.
    const results = this.pending?.isStandIn(block) ? undefined : this.results;
    let outcome = results?.get(blockHash, request);
    if (!outcome) {
      const limit = runLimit(this.timeoutMs, caller?.signal);
      checkRunLimit(limit);
      outcome =
        (await this.offload?.call(request, block, limit, this.pending?.contextOf(block))) ??
        (await this.execute(request, await this.localBlock(block), limit));
      results?.set(blockHash, request, outcome);
    }
    if ("error" in outcome) throw outcome.error;
    return outcome.ok;
  }

  /**
   * Executes `request` on top of `block` here, uncached: its return data, or the revert or failure
   * it ended with. Throws (rather than returns) what does not follow from the request and state
   * alone: a busy queue, a transaction the VM refused to start, or the end of `limit`.
   */
  async execute(request: CallRequest, block: Block, limit: RunLimit): Promise<CallResult> {
    const gas = this.capGas(request.gas ?? this.gasCap, block);
    const result = await this.runForOutput(request, block, gas, limit);
    try {
      throwOnFailure(result);
    } catch (error) {
      return { error: error as Error };
    }
    return { ok: result.returnValue };
  }

  /**
   * Readies what runs at `block` need before the first of them comes: its rules, the VM over its
   * state, and its context for calls that name no fee (queued behind the runs before it).
   */
  prepare(block: Block): Promise<void> {
    const job = this.lock.then(async () => {
      const rules = this.rulesOf(block);
      await this.vmAt(block, rules);
      executionBlock(block, {}, rules);
    });
    this.lock = job.catch(() => {});
    return job;
  }

  /** Finds the smallest gas limit (within 1.5 %) with which `request` succeeds, by binary search as geth does. */
  async estimateGas(request: CallRequest, block: Block, caller?: CancelSource): Promise<bigint> {
    const limit = callerLimit(this.timeoutMs, caller);
    const offloaded = await this.offload?.estimateGas(request, block, limit, this.pending?.contextOf(block));
    if (offloaded !== undefined) return offloaded;
    return this.estimateHere(request, await this.localBlock(block), limit);
  }

  private async estimateHere(request: CallRequest, block: Block, limit: RunLimit): Promise<bigint> {
    let hi = this.capGas(request.gas ?? block.header.gasLimit, block);
    const feeCap = request.maxFeePerGas ?? request.gasPrice ?? 0n;
    if (feeCap > 0n && request.from) {
      const balance = await this.balanceOf(request.from, block);
      const available = balance - (request.value ?? 0n);
      if (available < 0n) throw new ExecutionError("insufficient funds for transfer");
      const allowance = available / feeCap;
      if (allowance < hi) hi = allowance;
    }
    if (await this.isPlainTransfer(request, block)) {
      const transfer = await this.run(request, block, TRANSFER_GAS, limit);
      if (!transfer.result.execResult.exceptionError) return TRANSFER_GAS;
    }
    const first = await this.run(request, block, hi, limit, { followNeed: true });
    if (first.result.execResult.exceptionError) {
      throwOnFailure(first.result.execResult);
    }
    let lo = first.gasUsed - 1n;
    // The least limit under which the run goes as it went at the cap, as a limit below it would
    // starve a frame, a call or an SSTORE: the answer after one run when nothing the run read
    // depends on the limit, else once a run at it holds (two runs).
    const predicted = first.need !== undefined && first.need > first.gasUsed ? first.need : first.gasUsed;
    if (predicted > lo && predicted < hi) {
      if (first.need !== undefined && !first.limitDependent) return predicted;
      if (await this.succeeds(request, block, predicted, limit)) return predicted;
      lo = predicted;
    }
    // geth's optimistic limit: the gas used and refunded, the stipend, and what EIP-150 keeps back.
    const optimistic = ((first.gasUsed + first.result.gasRefund + CALL_STIPEND) * 64n) / 63n;
    if (optimistic > lo && optimistic < hi && Number(hi - lo) / Number(hi) >= ESTIMATE_ERROR_RATIO) {
      if (await this.succeeds(request, block, optimistic, limit)) hi = optimistic;
      else lo = optimistic;
    }
    while (lo + 1n < hi) {
      if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break;
      let mid = (hi + lo) / 2n;
      if (mid > lo * 2n) mid = lo * 2n;
      if (await this.succeeds(request, block, mid, limit)) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  /** Whether `request` runs to the end with `gasLimit`; a run that the VM refuses counts as a failure. */
  private async succeeds(
    request: CallRequest,
    block: Block,
    gasLimit: bigint,
    limit: RunLimit,
  ): Promise<boolean> {
    const attempt = await this.run(request, block, gasLimit, limit).catch((error: unknown) => {
      if (error instanceof BusyError || error instanceof RunStoppedError) throw error;
      return undefined;
    });
    return attempt !== undefined && !attempt.result.execResult.exceptionError;
  }

  /** Builds the access list `request` touches and the gas it uses with that list. */
  async createAccessList(
    request: CallRequest,
    block: Block,
    caller?: CancelSource,
  ): Promise<AccessListOutcome> {
    const limit = callerLimit(this.timeoutMs, caller);
    const offloaded = await this.offload?.createAccessList(
      request,
      block,
      limit,
      this.pending?.contextOf(block),
    );
    if (offloaded !== undefined) return offloaded;
    return this.accessListHere(request, await this.localBlock(block), limit);
  }

  private async accessListHere(
    request: CallRequest,
    block: Block,
    limit: RunLimit,
  ): Promise<AccessListOutcome> {
    const gas = this.capGas(request.gas ?? this.gasCap, block);
    const traced = await this.run(request, block, gas, limit, { reportAccessList: true });
    const excluded = new Set<string>([
      (request.from ?? createZeroAddress().toString()).toLowerCase(),
      ...(request.to ? [request.to.toLowerCase()] : []),
      ...(traced.result.createdAddress ? [traced.result.createdAddress.toString()] : []),
    ]);
    // As geth's access-list tracer: storage slots are listed for every contract, including the
    // callee; an address without slots is listed only when it is not the sender, the callee, a
    // created contract or a precompile (those are warm anyway).
    const accessList = (traced.result.accessList ?? [])
      .map((entry) => ({
        address: entry.address.toLowerCase(),
        storageKeys: entry.storageKeys.map((k) => padKey(k)),
      }))
      .filter(
        (entry) =>
          entry.storageKeys.length > 0 || (!excluded.has(entry.address) && !isPrecompile(entry.address)),
      );
    const withList = await this.run(
      { ...request, accessList: accessList as CallRequest["accessList"] },
      block,
      gas,
      limit,
    );
    const failure = withList.result.execResult.exceptionError;
    const base = { accessList, gasUsed: withList.gasUsed };
    if (!failure) return base;
    const reason = failure.error === "revert" ? revertMessage(withList.result) : failure.error;
    return { ...base, error: reason };
  }

  /** The block to run in on this thread: the built pending block for a stand-in, else `block`. */
  private localBlock(block: Block): Promise<Block> {
    return this.pending ? this.pending.localBlock(block) : Promise.resolve(block);
  }

  /**
   * The gas a call may use: at most the RPC gas cap and, where EIP-7825 is in force (Osaka), at most
   * the protocol's per-transaction limit (2^24), as geth caps calls rather than refusing them.
   */
  private capGas(gas: bigint, block: Block): bigint {
    let capped = this.gasCap > 0n && gas > this.gasCap ? this.gasCap : gas;
    const rules = this.rulesOf(block);
    if (rules.isActivatedEIP(7825)) {
      const txLimit = rules.param("maxTransactionGasLimit");
      if (capped > txLimit) capped = txLimit;
    }
    return capped;
  }

  /**
   * The rules `block` was executed under: the shared Common when the block is of the head's fork
   * (the usual case), otherwise a Common set to the block's own fork, made once per fork.
   */
  private rulesOf(block: Block): Common {
    const head = this.common.hardfork();
    const last = this.lastRules;
    if (last?.block === block && last.head === head) return last.rules;
    const { number, timestamp } = block.header;
    const hardfork = this.common.getHardforkBy({ blockNumber: number, timestamp });
    let rules = this.common;
    if (hardfork !== head) {
      let forkRules = this.forkCommons.get(hardfork);
      if (!forkRules) {
        forkRules = this.common.copy();
        forkRules.setHardfork(hardfork);
        this.forkCommons.set(hardfork, forkRules);
      }
      rules = forkRules;
    }
    this.lastRules = { block, head, rules };
    return rules;
  }

  private async balanceOf(address: string, block: Block): Promise<bigint> {
    const state = this.stateAt(block);
    return (await state.getAccount(new Address(hexToBytes(address as `0x${string}`))))?.balance ?? 0n;
  }

  private async isPlainTransfer(request: CallRequest, block: Block): Promise<boolean> {
    const input = request.input ?? request.data;
    if (
      !request.to ||
      (input && input !== "0x") ||
      request.accessList?.length ||
      request.authorizationList?.length
    ) {
      return false;
    }
    const code = await this.stateAt(block).getCode(new Address(hexToBytes(request.to)));
    return code.length === 0;
  }

  private run(
    request: CallRequest,
    block: Block,
    gasLimit: bigint,
    limit: RunLimit,
    options: { readonly reportAccessList?: boolean; readonly followNeed?: boolean } = {},
  ): Promise<CallOutcome & Partial<GasNeed>> {
    return this.inTurn(block, limit, async (vm, context, rules) => {
      const tx = callRequestTransaction(request, gasLimit, rules, block.header.baseFeePerGas ?? 0n);
      const execute = () => runCallTx(vm, tx, context(request), options.reportAccessList);
      if (!options.followNeed) {
        const result = await execute();
        return { returnValue: result.execResult.returnValue, gasUsed: result.totalGasSpent, result };
      }
      const tracker = new GasNeedTracker(
        rules.param("callStipendGas"),
        rules.gteHardfork(Hardfork.Istanbul) ? rules.param("sstoreSentryEIP2200Gas") : 0n,
      );
      const { result, need, limitDependent } = await tracker.follow(vm, gasLimit, execute);
      return {
        returnValue: result.execResult.returnValue,
        gasUsed: result.totalGasSpent,
        result,
        limitDependent,
        ...(need === undefined ? {} : { need }),
      };
    });
  }

  /** Runs a call for its output only: a plain call straight through the EVM, any other through runTx. */
  private runForOutput(
    request: CallRequest,
    block: Block,
    gasLimit: bigint,
    limit: RunLimit,
  ): Promise<ExecResult> {
    return this.inTurn(block, limit, async (vm, context, rules) => {
      const plain = await runPlainCall(vm, request, context(request), gasLimit);
      if (plain) return plain;
      const tx = callRequestTransaction(request, gasLimit, rules, block.header.baseFeePerGas ?? 0n);
      return (await runCallTx(vm, tx, context(request))).execResult;
    });
  }

  /**
   * Runs `work` on the VM at `block` once the runs queued before it are done, on a fresh overlay
   * that is dropped afterwards; a run that waited longer than `maxQueueWaitMs` is refused, and one
   * stopped by `limit` leaves a VM that is not used again.
   */
  private inTurn<T>(
    block: Block,
    limit: RunLimit,
    work: (vm: VM, context: (request: CallRequest) => Block, rules: Common) => Promise<T>,
  ): Promise<T> {
    const enqueuedAt = performance.now();
    const job = this.lock.then(async () => {
      const waited = performance.now() - enqueuedAt;
      if (waited > this.maxQueueWaitMs) {
        throw new BusyError(`execution queue wait exceeded ${this.maxQueueWaitMs} ms`, Math.ceil(waited));
      }
      checkRunLimit(limit);
      const rules = this.rulesOf(block);
      const { vm, overlay } = await this.vmAt(block, rules);
      overlay.reset();
      limitEvm(vm.evm, limit);
      try {
        return await work(vm, (request) => executionBlock(block, request, rules), rules);
      } catch (error) {
        if (!(error instanceof RunStoppedError)) throw new ExecutionError(cleanVmMessage(error));
        // A run stopped between two steps leaves its call frames' journal entries behind.
        this.cached = undefined;
        throw error;
      } finally {
        limitEvm(vm.evm, undefined);
        overlay.reset();
      }
    });
    this.lock = job.catch(() => {});
    return job;
  }

  private async vmAt(block: Block, common: Common): Promise<{ vm: VM; overlay: OverlayStateManager }> {
    const root = block.header.stateRoot;
    const hardfork = common.hardfork();
    const cached = this.cached;
    const sameRules = cached?.common === common && cached.hardfork === hardfork;
    if (sameRules && Buffer.compare(cached.root, root) !== 0) {
      // Another state under the same rules: the VM stays, its overlay reads through to that state.
      cached.overlay.rebase(this.stateAt(block));
      cached.root = root;
    } else if (!sameRules) {
      const overlay = new OverlayStateManager(this.stateAt(block), keccak256);
      // The VM gets a copy of the rules: an EVM adds a `hardforkChanged` listener to its Common and
      // never removes it, so on the long-lived shared Common every VM made (one per block called at)
      // stayed reachable, with its state and caches, for the life of the node.
      const vm = enforceRunLimits().then(() =>
        createVM({ common: common.copy(), stateManager: overlay, blockchain: this.chainView }),
      );
      this.cached = { root, common, hardfork, vm, overlay };
    }
    return { vm: await this.cached!.vm, overlay: this.cached!.overlay };
  }
}

/**
 * `runTx`'s options with the patched `skipReceipt` (patches/): a run whose result is all that is
 * wanted makes no logs bloom and no receipt.
 */
interface CallRunOpts extends RunTxOpts {
  readonly skipReceipt: boolean;
}

/**
 * Runs a call's transaction: no nonce check, no block gas limit, the block's own rules, and no
 * receipt (a call is answered from its execution result).
 */
function runCallTx(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
  reportAccessList = false,
): Promise<RunTxResult> {
  const opts: CallRunOpts = {
    tx,
    block,
    skipNonce: true,
    skipBlockGasLimitValidation: true,
    skipHardForkValidation: true,
    reportAccessList,
    skipReceipt: true,
  };
  return runTx(vm, opts);
}

function throwOnFailure(result: ExecResult): void {
  const failure = result.exceptionError;
  if (!failure) return;
  if (failure.error === "revert") {
    const data = result.returnValue;
    throw new RevertError(decodeRevertReason(data), data);
  }
  throw new ExecutionError(failure.error);
}

function revertMessage(result: RunTxResult): string {
  const reason = decodeRevertReason(result.execResult.returnValue);
  return reason ? `execution reverted: ${reason}` : "execution reverted";
}

/** The block context of a call: the chosen block, with no base fee when the call names no fee (as geth). */
function executionBlock(block: Block, request: CallRequest, common: Common): Block {
  const paysFee = (request.gasPrice ?? request.maxFeePerGas ?? 0n) > 0n;
  if (paysFee) return block;
  const cached = zeroBaseFeeBlocks.get(block);
  if (cached) return cached;
  const context = createBlock(
    { header: { ...headerDataOf(block.header), baseFeePerGas: 0n } },
    { common, setHardfork: false, skipConsensusFormatValidation: true },
  );
  zeroBaseFeeBlocks.set(block, context);
  return context;
}

/** Call contexts of blocks, kept while the block object lives (the chain caches recent blocks). */
const zeroBaseFeeBlocks = new WeakMap<Block, Block>();

function isPrecompile(address: string): boolean {
  const n = BigInt(address);
  return n >= 1n && n <= 0x11n;
}

function padKey(key: string): string {
  return `0x${key.slice(2).padStart(64, "0")}`;
}

function cleanVmMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const stripped = message.replace(/\s*\(tx type=.*$/s, "").replace(/^[A-Z_]+: /, "");
  if (/doesn't have enough funds/.test(stripped)) return "insufficient funds for gas * price + value";
  if (/lower than the minimum gas limit|intrinsic/i.test(stripped)) return "intrinsic gas too low";
  return stripped;
}
