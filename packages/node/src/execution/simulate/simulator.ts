import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { EVM } from "@ethereumjs/evm";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Address, createZeroAddress, hexToBytes, type WithdrawalData } from "@ethereumjs/util";
import { createVM, type RunTxResult } from "@ethereumjs/vm";
import type { BlockOverrides, BlockStateCall, SimulateOptions } from "@strata/protocol";
import {
  ExecutionError,
  RunStoppedError,
  ValidationError,
  type ValidationErrorKind,
} from "../../errors/domain-errors.js";
import type { StoredLog, StoredReceipt } from "../../storage/records.js";
import { decodeRevertReason } from "../call/revert-reason.js";
import type { ChainView } from "../evm/chain-view.js";
import { enforceRunLimits, limitEvm, type RunLimit, runLimit } from "../evm/run-limits.js";
import { scratchState } from "../state/scratch-state.js";
import { type IndexedLog, TransferLogCollector } from "./call-logs.js";
import { callTransaction, MAX_NONCE } from "./call-transaction.js";
import { SimulatedChainView } from "./simulated-chain-view.js";
import { SimulationBlockBuilder } from "./simulation-block-builder.js";
import { applyStateOverrides } from "./state-overrides.js";

/** geth's limits on one `eth_simulateV1` request. */
export const SIMULATE_LIMITS = { blocks: 256, callsPerBlock: 5000, calls: 10_000 } as const;

/** Seconds between simulated blocks whose time is not given. */
const TIMESTAMP_INCREMENT = 12n;

/** geth's code for a call that failed in the EVM other than by reverting. */
const VM_ERROR_CODE = -32015;

/** Why a simulated call failed: geth's `{message, code, data?}`. */
export interface SimulatedCallError {
  readonly message: string;
  readonly code: number;
  readonly data?: string;
}

/** The outcome of one simulated call. */
export interface SimulatedCall {
  readonly returnData: Uint8Array;
  /** The call's logs, each with its index among all logs emitted in the block (geth's numbering). */
  readonly logs: readonly IndexedLog[];
  readonly gasUsed: bigint;
  /** Gas used before refunds: the least gas limit with which the call behaves the same. */
  readonly maxUsedGas: bigint;
  readonly status: 0 | 1;
  readonly error?: SimulatedCallError;
}

/** One simulated block with its calls' outcomes and receipts (which carry each call's sender). */
export interface SimulatedBlock {
  readonly block: Block;
  readonly calls: readonly SimulatedCall[];
  readonly receipts: readonly StoredReceipt[];
}

/** What the simulator needs from the node. */
export interface SimulatorDeps {
  readonly common: Common;
  readonly chainView: ChainView;
  /** A state manager over the node's trie database at `block` (only read from). */
  readonly stateAt: (block: Block) => MerkleStateManager;
  /** Total gas all calls of one request may use (0: unlimited). */
  readonly gasCap: bigint;
  readonly timeoutMs: number;
}

/** What every block of one simulation shares. */
interface SimulationRun {
  readonly options: SimulateOptions;
  readonly state: MerkleStateManager;
  readonly chainView: SimulatedChainView;
  /** Gas the remaining calls may still use together. */
  readonly budget: { remaining: bigint };
  /** `performance.now()` after which no further call starts. */
  readonly deadline: number;
  /** Stops a call that runs past the deadline (or is called off) between two of its steps. */
  readonly limit: RunLimit;
}

interface PlannedBlock {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly request: BlockStateCall;
}

/**
 * `eth_simulateV1` as geth implements it: simulated blocks on top of a base block, each with
 * optional header and state overrides and a list of calls executed like transactions, every block
 * assembled with real roots and hash. Nothing reaches the node's storage. Outside `validation` mode
 * nonces are not checked and the base fee is zero unless overridden.
 */
export class Simulator {
  constructor(private readonly deps: SimulatorDeps) {}

  /**
   * Runs `options` on top of `base`, within `limit` (checked inside the interpreter; default:
   * `timeoutMs` from the start).
   */
  async simulate(options: SimulateOptions, base: Block, limit?: RunLimit): Promise<SimulatedBlock[]> {
    checkLimits(options);
    const plan = planBlocks(options.blockStateCalls, base);
    const run: SimulationRun = {
      options,
      state: scratchState(this.deps.stateAt(base), base.header.stateRoot, this.deps.common),
      chainView: new SimulatedChainView(this.deps.chainView),
      budget: { remaining: this.deps.gasCap > 0n ? this.deps.gasCap : 2n ** 64n - 1n },
      deadline: performance.now() + this.deps.timeoutMs,
      limit: limit ?? runLimit(this.deps.timeoutMs),
    };
    await enforceRunLimits();
    const results: SimulatedBlock[] = [];
    let parent = base;
    for (const planned of plan) {
      const simulated = await this.runBlock(run, planned, parent);
      run.chainView.add(planned.number, simulated.block.hash());
      results.push(simulated);
      parent = simulated.block;
    }
    return results;
  }

  private async runBlock(run: SimulationRun, planned: PlannedBlock, parent: Block): Promise<SimulatedBlock> {
    const { options, state, chainView, budget, deadline } = run;
    const { number, timestamp, request } = planned;
    const validate = options.validation === true;
    const common = this.deps.common.copy();
    common.setHardforkBy({ blockNumber: number, timestamp });
    const vm = await createVM({ common, stateManager: state, blockchain: chainView });
    // The VM is thrown away with its block: its limit needs no removal.
    limitEvm(vm.evm, run.limit);
    await applyStateOverrides(state, vm.evm as EVM, request.stateOverrides);
    const overrides = request.blockOverrides ?? {};
    const headerData = blockHeader(parent, number, timestamp, overrides, common, validate);
    const withdrawals: WithdrawalData[] | undefined = common.isActivatedEIP(4895)
      ? (overrides.withdrawals ?? [])
      : undefined;
    const builder = await SimulationBlockBuilder.start(vm, {
      parentBlock: parent,
      headerData,
      ...(withdrawals ? { withdrawals } : {}),
      blockOpts: { common, putBlockIntoBlockchain: false, setHardfork: false },
    });
    const gasLimit = headerData.gasLimit;
    const calls: SimulatedCall[] = [];
    const receipts: StoredReceipt[] = [];
    const collector = new TransferLogCollector(vm.evm as EVM, options.traceTransfers === true);
    for (const call of request.calls ?? []) {
      if (performance.now() > deadline) {
        throw new ExecutionError(`execution aborted (timeout = ${this.deps.timeoutMs / 1000}s)`);
      }
      const from = call.from ? new Address(hexToBytes(call.from)) : createZeroAddress();
      const remaining = gasLimit - builder.used;
      const wanted = call.gas ?? remaining;
      if (remaining < wanted) {
        throw new ValidationError(
          "blockGasLimitReached",
          `block gas limit reached: remaining: ${remaining}, required: ${wanted}`,
        );
      }
      const capped = wanted > budget.remaining;
      const stateNonce = (await state.getAccount(from))?.nonce ?? 0n;
      const nonce = call.nonce ?? stateNonce;
      // geth checks the nonce before anything else; the VM would report missing funds first.
      if (validate && nonce !== stateNonce) {
        const kind = nonce < stateNonce ? "nonceTooLow" : "nonceTooHigh";
        const words = nonce < stateNonce ? "nonce too low" : "nonce too high";
        throw new ValidationError(kind, `${words}: address ${from}, tx: ${nonce} state: ${stateNonce}`);
      }
      const gas = capped ? budget.remaining : wanted;
      if (validate && nonce === MAX_NONCE) {
        throw new ValidationError(
          "nonceMax",
          `err: nonce has max value: address ${from}, nonce: ${nonce} (supplied gas ${gas})`,
        );
      }
      const tx = callTransaction(call, { nonce, gasLimit: gas }, from, common);
      // geth runs a call that offers no fee at a zero base fee unless validating, and lets
      // contracts send calls (it skips EIP-3607's sender check for simulated calls).
      const free = !validate && !call.gasPrice && !call.maxFeePerGas && !call.maxPriorityFeePerGas;
      const restoreCode = await admitContractSender(state, from, common);
      collector.start();
      let result: RunTxResult;
      try {
        result = await builder.runCall(tx, {
          validate,
          zeroBaseFee: free,
          blobBaseFee: overrides.blobBaseFee,
        });
      } catch (error) {
        collector.finish();
        throw validationError(error, from);
      } finally {
        restoreCode();
      }
      const logs = collector.finish();
      if (!validate) await wrapMaxNonce(state, from);
      if (result.totalGasSpent > budget.remaining) {
        throw new ExecutionError(
          `RPC gas cap exhausted: need ${result.totalGasSpent}, remaining ${budget.remaining}`,
        );
      }
      budget.remaining -= result.totalGasSpent;
      calls.push(callOutcome(result, logs, capped));
      receipts.push(receipt(tx, result, from, logs));
    }
    const built = await builder.build();
    return { block: built.block, calls, receipts };
  }
}

/**
 * Lets a contract account send the next call, as geth's simulation does: the VM refuses a sender
 * with code unless that code is an EIP-7702 delegation, and reads the sender's code once to decide,
 * so that one read is answered with a delegation designator. Returns the function that ends it
 * (after the call, whether or not the read happened).
 */
async function admitContractSender(
  state: MerkleStateManager,
  from: Address,
  common: Common,
): Promise<() => void> {
  const account = await state.getAccount(from);
  if (!account || account.isContract() === false || !common.isActivatedEIP(7702)) return () => {};
  const code = await state.getCode(from);
  if (code.length >= 3 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00) return () => {};
  const getCode = state.getCode;
  const restore = () => {
    state.getCode = getCode;
  };
  state.getCode = async (address) => {
    if (!address.equals(from)) return getCode.call(state, address);
    restore();
    return DELEGATION_DESIGNATOR;
  };
  return restore;
}

/**
 * geth keeps nonces in 64 bits and, with nonce checks off, lets a sender at the largest nonce send:
 * the nonce wraps to zero. The VM counts on past it, so the sender's nonce is wrapped here.
 */
async function wrapMaxNonce(state: MerkleStateManager, from: Address): Promise<void> {
  const account = await state.getAccount(from);
  if (!account || account.nonce <= MAX_NONCE) return;
  account.nonce = 0n;
  await state.putAccount(from, account);
}

const DELEGATION_DESIGNATOR = Uint8Array.from([0xef, 0x01, 0x00]);

function checkLimits(options: SimulateOptions): void {
  const blocks = options.blockStateCalls;
  if (blocks.length === 0) throw new ValidationError("invalidParams", "empty input");
  if (blocks.length > SIMULATE_LIMITS.blocks)
    throw new ValidationError("clientLimitExceeded", "too many blocks");
  let total = 0;
  for (const block of blocks) {
    const count = block.calls?.length ?? 0;
    if (count > SIMULATE_LIMITS.callsPerBlock) {
      throw new ValidationError(
        "clientLimitExceeded",
        `too many calls in block: ${count} > ${SIMULATE_LIMITS.callsPerBlock}`,
      );
    }
    total += count;
    if (total > SIMULATE_LIMITS.calls) {
      throw new ValidationError("clientLimitExceeded", `too many calls: ${total} > ${SIMULATE_LIMITS.calls}`);
    }
  }
}

/**
 * Numbers and times every block as geth's `sanitizeChain`: numbers default to the previous + 1 and
 * must increase, gaps are filled with empty blocks 12 s apart, times default to the previous + 12 s
 * and must increase; at most 256 blocks past the base.
 */
function planBlocks(requests: readonly BlockStateCall[], base: Block): PlannedBlock[] {
  const plan: PlannedBlock[] = [];
  let number = base.header.number;
  let time = base.header.timestamp;
  for (const request of requests) {
    const wanted = request.blockOverrides?.number ?? number + 1n;
    if (wanted <= number) {
      throw new ValidationError(
        "blockNumberInvalid",
        `block numbers must be in order: ${wanted} <= ${number}`,
      );
    }
    if (wanted - base.header.number > BigInt(SIMULATE_LIMITS.blocks)) {
      throw new ValidationError("clientLimitExceeded", "too many blocks");
    }
    for (let gap = number + 1n; gap < wanted; gap++) {
      time += TIMESTAMP_INCREMENT;
      plan.push({ number: gap, timestamp: time, request: {} });
    }
    const given = request.blockOverrides?.time;
    if (given !== undefined && given <= time) {
      throw new ValidationError(
        "blockTimestampInvalid",
        `block timestamps must be in order: ${given} <= ${time}`,
      );
    }
    number = wanted;
    time = given ?? time + TIMESTAMP_INCREMENT;
    plan.push({ number, timestamp: time, request });
  }
  return plan;
}

const ZERO_HASH = new Uint8Array(32);

/** The header fields of a simulated block, from its parent, its overrides and the active rules. */
function blockHeader(
  parent: Block,
  number: bigint,
  timestamp: bigint,
  overrides: BlockOverrides,
  common: Common,
  validate: boolean,
) {
  const london = common.isActivatedEIP(1559);
  const cancun = common.isActivatedEIP(4844);
  const parentCancun = parent.header.excessBlobGas !== undefined;
  const baseFee = overrides.baseFeePerGas ?? (validate ? parent.header.calcNextBaseFee() : 0n);
  return {
    parentHash: parent.hash(),
    number,
    timestamp,
    coinbase: overrides.feeRecipient ? hexToBytes(overrides.feeRecipient) : parent.header.coinbase.bytes,
    gasLimit: overrides.gasLimit ?? parent.header.gasLimit,
    // Post-merge blocks have no difficulty; before the merge a block keeps its parent's.
    difficulty: overrides.difficulty ?? (common.isActivatedEIP(4895) ? 0n : parent.header.difficulty),
    mixHash: overrides.prevRandao ? hexToBytes(overrides.prevRandao) : ZERO_HASH,
    nonce: new Uint8Array(8),
    extraData: new Uint8Array(),
    ...(london ? { baseFeePerGas: baseFee } : {}),
    ...(cancun
      ? {
          excessBlobGas: parentCancun ? parent.header.calcNextExcessBlobGas(common) : 0n,
          parentBeaconBlockRoot: overrides.beaconRoot ? hexToBytes(overrides.beaconRoot) : ZERO_HASH,
        }
      : {}),
  };
}

function callOutcome(result: RunTxResult, logs: readonly IndexedLog[], capped: boolean): SimulatedCall {
  const { execResult } = result;
  const failure = execResult.exceptionError;
  const base = {
    // geth reports no return data for a failed call: a revert's payload is in `error.data`.
    returnData: failure ? new Uint8Array() : execResult.returnValue,
    gasUsed: result.totalGasSpent,
    maxUsedGas: result.totalGasSpent + result.gasRefund,
  };
  if (!failure) return { ...base, logs, status: 1 };
  if (failure.error === "revert") {
    const reason = decodeRevertReason(execResult.returnValue);
    return {
      ...base,
      logs: [],
      status: 0,
      error: {
        message: reason ? `execution reverted: ${reason}` : "execution reverted",
        code: 3,
        data: `0x${Buffer.from(execResult.returnValue).toString("hex")}`,
      },
    };
  }
  const suffix = capped ? " (gas limit was capped by the RPC server's global gas cap)" : "";
  return {
    ...base,
    logs: [],
    status: 0,
    error: { message: `${failure.error}${suffix}`, code: VM_ERROR_CODE },
  };
}

function receipt(
  tx: TypedTransaction,
  result: RunTxResult,
  from: Address,
  logs: readonly StoredLog[],
): StoredReceipt {
  const failed = result.execResult.exceptionError !== undefined;
  return {
    type: tx.type,
    status: failed ? 0 : 1,
    cumulativeGasUsed: result.receipt.cumulativeBlockGasUsed,
    gasUsed: result.totalGasSpent,
    logs: failed ? [] : logs.map(({ address, topics, data }) => ({ address, topics, data })),
    sender: from.bytes,
    contractAddress: result.createdAddress?.bytes,
    txHash: tx.hash(),
  };
}

/** The VM's reasons a transaction cannot be included, with geth's kind and wording for each. */
const INCLUSION_FAILURES: readonly [
  RegExp,
  ValidationErrorKind,
  (m: RegExpExecArray, sender: string) => string,
][] = [
  [
    /account has nonce of: (\d+) tx has nonce of: (\d+)/,
    "nonceTooLow",
    (m, sender) => `nonce too low: address ${sender}, tx: ${m[2]} state: ${m[1]}`,
  ],
  [
    /(?:upfront|max) cost is: (\d+) and the sender's account \(\S+\) only has: (\d+)/,
    "insufficientFunds",
    (m, sender) => `insufficient funds for gas * price + value: address ${sender} have ${m[2]} want ${m[1]}`,
  ],
  [
    /\((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/,
    "baseFeeTooLow",
    (m, sender) =>
      `max fee per gas less than block base fee: address ${sender}, maxFeePerGas: ${m[1]}, baseFee: ${m[2]}`,
  ],
  [
    /tx gas limit (\d+) is lower than the minimum gas limit of (\d+)/,
    "intrinsicGas",
    (m) => `intrinsic gas too low: have ${m[1]}, want ${m[2]}`,
  ],
  [/initcode/i, "maxInitCodeSizeExceeded", () => "max initcode size exceeded"],
  [/address is not EOA/, "senderNotEoa", (_, sender) => `sender not an eoa: address ${sender}`],
];

/** geth's wording and code for a call that cannot be included in its block. */
function validationError(error: unknown, from: Address): Error {
  if (error instanceof RunStoppedError) return error;
  // The VM appends its, the block's and the transaction's description in parentheses.
  const message = (error instanceof Error ? error.message : String(error)).replace(/ \([^()]*->.*$/s, "");
  const sender = from.toString();
  for (const [pattern, kind, text] of INCLUSION_FAILURES) {
    const match = pattern.exec(message);
    if (!match) continue;
    const nonceTooHigh = kind === "nonceTooLow" && BigInt(match[2]!) > BigInt(match[1]!);
    if (nonceTooHigh) {
      return new ValidationError(
        "nonceTooHigh",
        `nonce too high: address ${sender}, tx: ${match[2]} state: ${match[1]}`,
      );
    }
    return new ValidationError(kind, text(match, sender));
  }
  return new ExecutionError(message.replace(/^[A-Z_]+: /, ""));
}
