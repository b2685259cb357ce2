import type { BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { EVMRunCallOpts } from "@ethereumjs/evm";
import {
  Account,
  Address,
  bigIntToBytes,
  bytesToHex,
  createAddressFromString,
  equalsBytes,
  hexToBytes,
  setLengthLeft,
} from "@ethereumjs/util";
import { createVM } from "@ethereumjs/vm";
import {
  encodeDistributeRewards,
  encodeRecordSlot,
  STAKING_ADDRESS,
  STAKING_STATS_JAILED_OFFSET,
  STAKING_STATS_SLOT,
  Staking,
  SYSTEM_ADDRESS,
  SYSTEM_CALL_GAS_LIMIT,
} from "@strata/contracts";
import { decodeFunctionResult, encodeFunctionData, getAddress, type Hex } from "viem";
import { keccak256 } from "../crypto/keccak.js";
import type { BlockContext } from "../execution/block/block-executor.js";
import type { StateFactory } from "../execution/state/state-factory.js";
import type { ActiveValidator } from "./schedule.js";

/** Raised when a system call of the Staking contract fails (a broken genesis or contract). */
export class SystemCallError extends Error {}

const system = createAddressFromString(SYSTEM_ADDRESS);
const staking = createAddressFromString(STAKING_ADDRESS);
const VALIDATOR_SET = hexToBytes(encodeFunctionData({ abi: Staking.abi, functionName: "validatorSet" }));

type EvmBlock = NonNullable<EVMRunCallOpts["block"]>;

/** What a system call needs of a block's context: the VM and the block's execution fields. */
export type CallContext = Omit<BlockContext, "parent">;

/** The execution context system calls see: the block being built. */
function evmBlock(context: CallContext): EvmBlock {
  return {
    header: {
      number: context.number,
      coinbase: new Address(context.coinbase),
      timestamp: context.timestamp,
      difficulty: 0n,
      prevRandao: context.mixHash,
      gasLimit: context.gasLimit,
      baseFeePerGas: context.baseFeePerGas,
      getBlobGasPrice: () => 1n,
    },
  };
}

async function call(
  context: CallContext,
  data: Uint8Array,
  value = 0n,
  isStatic = false,
): Promise<Uint8Array> {
  const { vm } = context;
  const result = await vm.evm.runCall({
    caller: system,
    origin: system,
    to: staking,
    data,
    value,
    gasLimit: SYSTEM_CALL_GAS_LIMIT,
    gasPrice: 0n,
    skipNonceIncrement: true,
    isStatic,
    block: evmBlock(context),
  });
  await vm.evm.journal.cleanup();
  const exec = result.execResult;
  if (exec.exceptionError) {
    throw new SystemCallError(
      `Staking system call failed in block ${context.number}: ${exec.exceptionError.error} ${bytesToHex(exec.returnValue)}`,
    );
  }
  return exec.returnValue;
}

/**
 * The validator set (`Staking.validatorSet()`) in the VM's current state, in the contract's order:
 * every member votes for finality, the unjailed ones propose.
 */
export async function readActiveSet(context: CallContext): Promise<ActiveValidator[]> {
  const data = await call(context, VALIDATOR_SET, 0n, true);
  const [addresses, stakes, jailed] = decodeFunctionResult({
    abi: Staking.abi,
    functionName: "validatorSet",
    data: bytesToHex(data) as Hex,
  });
  return addresses.map((a, i) => ({
    address: a.toLowerCase(),
    stake: stakes[i]!,
    ...(jailed[i] ? { jailed: true } : {}),
  }));
}

/** The active set after `header` (read from its post-state), for a block this node did not just build or verify. */
export async function readActiveSetAfter(
  common: Common,
  states: StateFactory,
  header: BlockHeader,
): Promise<ActiveValidator[]> {
  return readActiveSet(await contextAfter(common, states, header));
}

/**
 * The block from which `validator` may leave jail (`unjail()` succeeds), read from `header`'s
 * post-state; undefined when it is not jailed, jailed for good (double signing), or not a validator.
 */
export async function readJailEnd(
  common: Common,
  states: StateFactory,
  header: BlockHeader,
  validator: string,
): Promise<bigint | undefined> {
  const data = encodeFunctionData({
    abi: Staking.abi,
    functionName: "getValidator",
    args: [getAddress(validator)],
  });
  let result: Uint8Array;
  try {
    result = await call(await contextAfter(common, states, header), hexToBytes(data), 0n, true);
  } catch (error) {
    // getValidator reverts for an address that never registered.
    if (error instanceof SystemCallError) return undefined;
    throw error;
  }
  const info = decodeFunctionResult({
    abi: Staking.abi,
    functionName: "getValidator",
    data: bytesToHex(result) as Hex,
  });
  return info.jailed && info.jailedUntil !== FOREVER ? info.jailedUntil : undefined;
}

/** `jailedUntil` of a validator jailed for good. */
const FOREVER = 2n ** 64n - 1n;

/** A call context on `header`'s post-state, as the block after it would see it. */
async function contextAfter(common: Common, states: StateFactory, header: BlockHeader): Promise<CallContext> {
  const vm = await createVM({ common: common.copy(), stateManager: states.at(header.stateRoot) });
  return {
    vm,
    number: header.number + 1n,
    timestamp: header.timestamp + 1n,
    coinbase: new Uint8Array(20),
    mixHash: new Uint8Array(32),
    gasLimit: header.gasLimit,
    baseFeePerGas: header.calcNextBaseFee(),
  };
}

/**
 * Reads the active set as {@link readActiveSet} does, and answers again without running the EVM
 * while the Staking contract's code and what the last run read of its storage hold the same values:
 * `validatorSet()` reads its own storage and nothing else (no other account, no block field), so its
 * answer is the same. Of a member's `Stats` slot it uses only `jailed`: the counters sharing that
 * slot change with every block's `recordSlot`, so only the `jailed` byte of those slots is compared.
 * Most blocks leave the active set alone (it changes at epoch ends, with jailing, and with staking
 * transactions), and every block reads it.
 */
export class ActiveSetReader {
  private last:
    | {
        readonly codeHash: Uint8Array;
        readonly slots: readonly ReadSlot[];
        readonly set: ActiveValidator[];
      }
    | undefined;

  /** The active set in the VM's current state. */
  async read(context: CallContext): Promise<ActiveValidator[]> {
    const state = context.vm.stateManager;
    const codeHash = (await state.getAccount(staking))?.codeHash;
    if (!codeHash) return readActiveSet(context);
    if (this.last && (await this.stillHolds(context, codeHash))) return this.last.set;
    const read: (readonly [Uint8Array, Uint8Array])[] = [];
    let foreign = false;
    const getStorage = state.getStorage;
    state.getStorage = async (address, key) => {
      const value = await getStorage.call(state, address, key);
      if (address.equals(staking)) read.push([key.slice(), value.slice()]);
      else foreign = true;
      return value;
    };
    let set: ActiveValidator[];
    try {
      set = await readActiveSet(context);
    } finally {
      delete (state as Partial<typeof state>).getStorage;
    }
    const statsSlots = new Set(set.map((v) => bytesToHex(statsSlotOf(v.address))));
    const slots = read.map(([key, value]): ReadSlot => {
      const jailedOnly = statsSlots.has(bytesToHex(key));
      return { key, value: jailedOnly ? jailedByte(value) : value, jailedOnly };
    });
    // A run that read another account's storage is not remembered (it never does: a safeguard).
    this.last = foreign ? undefined : { codeHash, slots, set };
    return set;
  }

  private async stillHolds(context: CallContext, codeHash: Uint8Array): Promise<boolean> {
    const last = this.last!;
    if (!equalsBytes(last.codeHash, codeHash)) return false;
    for (const { key, value, jailedOnly } of last.slots) {
      const now = await context.vm.stateManager.getStorage(staking, key);
      if (!equalsBytes(jailedOnly ? jailedByte(now) : now, value)) return false;
    }
    return true;
  }
}

/** A storage slot a run of `validatorSet()` read, and what it held (only `jailed` of a `Stats` slot). */
interface ReadSlot {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
  readonly jailedOnly: boolean;
}

/** The storage slot of `Staking._stats[validator]`. */
function statsSlotOf(validator: string): Uint8Array {
  const preimage = new Uint8Array(64);
  preimage.set(hexToBytes(validator as Hex), 12);
  preimage.set(setLengthLeft(bigIntToBytes(STAKING_STATS_SLOT), 32), 32);
  return keccak256(preimage);
}

/** The `jailed` byte of a `Stats` slot's value (stored without leading zeros). */
function jailedByte(value: Uint8Array): Uint8Array {
  const index = 31 - STAKING_STATS_JAILED_OFFSET;
  return setLengthLeft(value, 32).subarray(index, index + 1);
}

/** `recordSlot` calldata by proposer and missed validators: the same few combinations recur block after block. */
const recordSlotCalldata = new Map<string, Hex>();
const RECORD_SLOT_CALLDATA_ENTRIES = 256;

/** `Staking.recordSlot(proposer, missed)`: the first thing every block after genesis runs. */
export async function recordSlot(
  context: BlockContext,
  proposer: string,
  missed: readonly string[],
): Promise<void> {
  const key = `${proposer}:${missed.join(",")}`;
  let data = recordSlotCalldata.get(key);
  if (!data) {
    data = encodeRecordSlot(
      getAddress(proposer),
      missed.map((m) => getAddress(m)),
    );
    if (recordSlotCalldata.size >= RECORD_SLOT_CALLDATA_ENTRIES) recordSlotCalldata.clear();
    recordSlotCalldata.set(key, data);
  }
  await call(context, hexToBytes(data));
}

/**
 * Moves the block's rewards into the epoch's reward pot, the balance of SYSTEM_ADDRESS: the block
 * reward is minted there, and the priority fees the transactions paid the coinbase are taken back
 * from it, so that both reach validators and delegators only through `distributeRewards`.
 */
export async function creditRewardPot(
  context: BlockContext,
  blockReward: bigint,
  fees: bigint,
): Promise<void> {
  const state = context.vm.stateManager;
  if (fees > 0n) {
    const coinbase = new Address(context.coinbase);
    const account = (await state.getAccount(coinbase)) ?? new Account();
    account.balance -= fees;
    if (account.isEmpty()) await state.deleteAccount(coinbase);
    else await state.putAccount(coinbase, account);
  }
  const added = blockReward + fees;
  if (added === 0n) return;
  const pot = (await state.getAccount(system)) ?? new Account();
  pot.balance += added;
  await state.putAccount(system, pot);
}

/** `Staking.distributeRewards()` with the whole reward pot: the last thing the last block of an epoch runs. */
export async function distributeRewards(context: BlockContext): Promise<void> {
  const pot = (await context.vm.stateManager.getAccount(system))?.balance ?? 0n;
  await call(context, hexToBytes(encodeDistributeRewards()), pot);
}
