import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { MerkleStateManager } from "@ethereumjs/statemanager";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { CLRequest, CLRequestType } from "@ethereumjs/util";
import { createVM } from "@ethereumjs/vm";
import { ExecutionError, RunStoppedError } from "../../errors/domain-errors.js";
import type { ChainView } from "../evm/chain-view.js";
import { enforceRunLimits, limitEvm, type RunLimit } from "../evm/run-limits.js";
import { scratchState } from "../state/scratch-state.js";
import { StreamingBlockBuilder } from "./streaming-block-builder.js";

/** geth's default target gas limit for the blocks it builds (`miner.gaslimit`). */
export const DEFAULT_GAS_CEILING = 60_000_000n;

/** The engine API's `PayloadAttributes`: what the consensus layer decides about the next block. */
export interface PayloadAttributes {
  readonly timestamp: bigint;
  readonly prevRandao: Uint8Array;
  readonly suggestedFeeRecipient: Uint8Array;
  readonly withdrawals?: readonly {
    index: bigint;
    validatorIndex: bigint;
    address: string;
    amount: bigint;
  }[];
  readonly parentBeaconBlockRoot?: Uint8Array;
}

/** A built block with what its payload envelope reports besides the block. */
export interface BuiltPayload {
  readonly block: Block;
  /** What the fee recipient earns from priority fees. */
  readonly blockValue: bigint;
  /** EIP-7685 requests (type byte and data each), the empty ones left out; undefined before Prague. */
  readonly requests: readonly Uint8Array[] | undefined;
}

/** What building needs from the node. */
export interface PayloadBuilderDeps {
  readonly common: Common;
  readonly chainView: ChainView;
  /** A state manager over the node's trie database at `block` (only read from). */
  readonly stateAt: (block: Block) => MerkleStateManager;
  /** Bounds the build, checked inside the interpreter (default: none). */
  readonly limit?: RunLimit;
}

/**
 * geth's `core.CalcGasLimit`: the gas limit moves from the parent's toward `desired` by at most
 * 1/1024 of the parent's (less one).
 */
export function nextGasLimit(parentGasLimit: bigint, desired: bigint): bigint {
  const delta = parentGasLimit / 1024n - 1n;
  const target = desired < 5000n ? 5000n : desired;
  if (parentGasLimit < target) {
    const raised = parentGasLimit + delta;
    return raised > target ? target : raised;
  }
  if (parentGasLimit > target) {
    const lowered = parentGasLimit - delta;
    return lowered < target ? target : lowered;
  }
  return parentGasLimit;
}

/**
 * Builds the block that follows `parent` as geth's `testing_buildBlockV1` does, in scratch state
 * (nothing reaches the node's storage). `transactions` given are all included, in order, and one
 * that cannot be fails the build; `candidates` (the pool's executable transactions) are included
 * while they fit and apply, and skipped otherwise.
 */
export async function buildPayload(
  deps: PayloadBuilderDeps,
  parent: Block,
  attributes: PayloadAttributes,
  transactions:
    | { readonly given: readonly TypedTransaction[] }
    | { readonly candidates: readonly TypedTransaction[] },
  extraData: Uint8Array,
): Promise<BuiltPayload> {
  const number = parent.header.number + 1n;
  const common = deps.common.copy();
  common.setHardforkBy({ blockNumber: number, timestamp: attributes.timestamp });
  const state = scratchState(deps.stateAt(parent), parent.header.stateRoot, common);
  await enforceRunLimits();
  const vm = await createVM({ common, stateManager: state, blockchain: deps.chainView });
  // The VM is thrown away with the build: its limit needs no removal.
  limitEvm(vm.evm, deps.limit);
  const cancun = common.isActivatedEIP(4844);
  const gasLimit = nextGasLimit(parent.header.gasLimit, DEFAULT_GAS_CEILING);
  const builder = await StreamingBlockBuilder.start(vm, {
    parentBlock: parent,
    headerData: {
      parentHash: parent.hash(),
      number,
      timestamp: attributes.timestamp,
      coinbase: attributes.suggestedFeeRecipient,
      gasLimit,
      difficulty: 0n,
      mixHash: attributes.prevRandao,
      nonce: new Uint8Array(8),
      extraData,
      ...(common.isActivatedEIP(1559) ? { baseFeePerGas: parent.header.calcNextBaseFee() } : {}),
      ...(cancun
        ? {
            excessBlobGas:
              parent.header.excessBlobGas !== undefined ? parent.header.calcNextExcessBlobGas(common) : 0n,
            parentBeaconBlockRoot: attributes.parentBeaconBlockRoot ?? new Uint8Array(32),
          }
        : {}),
    },
    ...(common.isActivatedEIP(4895)
      ? {
          withdrawals: (attributes.withdrawals ?? []).map((w) => ({
            index: w.index,
            validatorIndex: w.validatorIndex,
            address: w.address as `0x${string}`,
            amount: w.amount,
          })),
        }
      : {}),
    blockOpts: { common, putBlockIntoBlockchain: false, setHardfork: false },
  });
  let blockValue = 0n;
  let used = 0n;
  if ("given" in transactions) {
    for (const tx of transactions.given) {
      try {
        const result = await builder.addTransaction(tx);
        blockValue += result.minerValue;
      } catch (error) {
        if (error instanceof RunStoppedError) throw error;
        throw inclusionError(error, tx);
      }
    }
  } else {
    for (const tx of transactions.candidates) {
      if (used + tx.gasLimit > gasLimit) continue;
      try {
        const result = await builder.addTransaction(tx);
        blockValue += result.minerValue;
        used += result.totalGasSpent;
      } catch (error) {
        if (error instanceof RunStoppedError) throw error;
        // A pool transaction that no longer applies is left out, as a miner does.
      }
    }
  }
  const built = await builder.build();
  return { block: built.block, blockValue, requests: requestBytes(built.requests) };
}

function requestBytes(requests: readonly CLRequest<CLRequestType>[] | undefined): Uint8Array[] | undefined {
  return requests?.filter((request) => request.data.length > 0).map((request) => request.bytes);
}

/** geth's wording for a transaction that cannot be included (a plain -32000 error). */
function inclusionError(error: unknown, tx: TypedTransaction): Error {
  const message = (error instanceof Error ? error.message : String(error)).replace(/ \([^()]*->.*$/s, "");
  const nonce = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(message);
  if (nonce) {
    const words = BigInt(nonce[2]!) > BigInt(nonce[1]!) ? "nonce too high" : "nonce too low";
    return new ExecutionError(
      `${words}: address ${tx.getSenderAddress()}, tx: ${nonce[2]} state: ${nonce[1]}`,
    );
  }
  return new ExecutionError(message.replace(/^[A-Z_]+: /, ""));
}
