/**
 * A small in-process EVM for testing the system contracts: @ethereumjs/vm on the Prague hardfork,
 * driven with `evm.runCall` (no signatures, any caller), a settable block number and timestamp,
 * and viem for ABI encoding and decoding.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import type { EVMRunCallOpts, ExecResult } from "@ethereumjs/evm";
import { createAccount, createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { createVM, type VM } from "@ethereumjs/vm";
import {
  type Abi,
  type Address,
  bytesToHex,
  type ContractEventName,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type ContractFunctionReturnType,
  type DecodeEventLogReturnType,
  decodeErrorResult,
  decodeEventLog,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
} from "viem";
import { SYSTEM_ADDRESS, SYSTEM_CALL_GAS_LIMIT } from "../constants.js";
import type { CreationCode } from "../deploy.js";

type EvmBlock = NonNullable<EVMRunCallOpts["block"]>;

/** A call that ended in REVERT (or another exceptional halt), with the revert data decoded when possible. */
export class RevertError extends Error {
  readonly data: Hex;
  readonly errorName: string | undefined;
  readonly args: readonly unknown[] | undefined;

  constructor(data: Hex, halt: string, abi?: Abi) {
    let errorName: string | undefined;
    let args: readonly unknown[] | undefined;
    if (data !== "0x") {
      try {
        const decoded = decodeErrorResult({ abi: abi ?? [], data });
        errorName = decoded.errorName;
        args = decoded.args ?? [];
      } catch {
        // revert data from an error not in `abi`
      }
    }
    super(
      `execution reverted${errorName ? `: ${errorName}(${(args ?? []).map(String).join(", ")})` : ` (${halt})`}`,
    );
    this.name = "RevertError";
    this.data = data;
    this.errorName = errorName;
    this.args = args;
  }
}

export interface DecodedEvent {
  readonly address: Address;
  readonly eventName: string;
  readonly args: Record<string, unknown>;
}

export interface CallResult<T> {
  readonly result: T;
  /** Execution gas (excludes the 21,000 + calldata intrinsic cost of a transaction, and refunds). */
  readonly gasUsed: bigint;
  /** Logs of the call decoded with the called contract's ABI (logs it cannot decode are left out). */
  readonly events: readonly DecodedEvent[];
}

type ReadName<abi extends Abi> = ContractFunctionName<abi, "pure" | "view">;
type WriteName<abi extends Abi> = ContractFunctionName<abi, "nonpayable" | "payable">;

export interface ReadParams<abi extends Abi, fn extends ReadName<abi>> {
  readonly address: Address;
  readonly abi: abi;
  readonly functionName: fn;
  readonly args?: ContractFunctionArgs<abi, "pure" | "view", fn>;
  readonly from?: Address;
}

export interface WriteParams<abi extends Abi, fn extends WriteName<abi>> {
  readonly address: Address;
  readonly abi: abi;
  readonly functionName: fn;
  readonly args?: ContractFunctionArgs<abi, "nonpayable" | "payable", fn>;
  readonly from: Address;
  readonly value?: bigint;
  /** Credit the caller with `value` first if it lacks it (how the node funds system calls). */
  readonly mintValue?: boolean;
  readonly gasLimit?: bigint;
}

export class TestEvm {
  /** Number of the block the next call executes in. */
  blockNumber = 1n;
  /** Timestamp of that block (seconds). */
  timestamp = 1_700_000_000n;
  /** Seconds added per block by `mine`. */
  blockTime = 2n;
  coinbase: Address = "0x0000000000000000000000000000000000000000";

  private constructor(readonly vm: VM) {}

  static async create(chainId = 1337): Promise<TestEvm> {
    const common = createCustomCommon({ chainId }, Mainnet, { hardfork: Hardfork.Prague });
    return new TestEvm(await createVM({ common }));
  }

  /** Advance `blocks` blocks, `blockTime` seconds each. */
  mine(blocks = 1n): void {
    this.blockNumber += blocks;
    this.timestamp += blocks * this.blockTime;
  }

  /** Jump to block `number` (and optionally a timestamp; otherwise `blockTime` per block moved). */
  setBlock(number: bigint, timestamp?: bigint): void {
    this.timestamp = timestamp ?? this.timestamp + (number - this.blockNumber) * this.blockTime;
    this.blockNumber = number;
  }

  async setBalance(address: Address, balance: bigint): Promise<void> {
    const addr = createAddressFromString(address);
    const account = (await this.vm.stateManager.getAccount(addr)) ?? createAccount({});
    account.balance = balance;
    await this.vm.stateManager.putAccount(addr, account);
  }

  /** Install runtime `code` at `address` (e.g. a contract that rejects payments). */
  async setCode(address: Address, code: Hex): Promise<void> {
    const addr = createAddressFromString(address);
    if (!(await this.vm.stateManager.getAccount(addr))) {
      await this.vm.stateManager.putAccount(addr, createAccount({ nonce: 1n }));
    }
    await this.vm.stateManager.putCode(addr, hexToBytes(code));
  }

  async fund(address: Address, amount: bigint): Promise<void> {
    await this.setBalance(address, (await this.balance(address)) + amount);
  }

  async balance(address: Address): Promise<bigint> {
    const account = await this.vm.stateManager.getAccount(createAddressFromString(address));
    return account?.balance ?? 0n;
  }

  async code(address: Address): Promise<Hex> {
    return bytesToHex(await this.vm.stateManager.getCode(createAddressFromString(address)));
  }

  async storageAt(address: Address, slot: Hex): Promise<Hex> {
    const raw = await this.vm.stateManager.getStorage(createAddressFromString(address), hexToBytes(slot));
    return bytesToHex(raw);
  }

  /**
   * Ordinary CREATE from `from` (funded automatically with `value`). Returns the new address.
   * `abi` only serves to decode a constructor revert.
   */
  async deploy(
    creation: CreationCode,
    from: Address = "0x00000000000000000000000000000000000d3910",
    abi?: Abi,
  ): Promise<Address> {
    await this.fund(from, creation.value);
    await this.freshJournal();
    const res = await this.vm.evm.runCall({
      ...this.context(from),
      data: hexToBytes(creation.data),
      value: creation.value,
      gasLimit: SYSTEM_CALL_GAS_LIMIT,
    });
    this.throwIfFailed(res.execResult, abi);
    if (!res.createdAddress) throw new Error("deployment created no contract");
    return getAddress(res.createdAddress.toString());
  }

  /**
   * Genesis-style deployment at a fixed address, as the node builds its genesis state: run the
   * creation code as code of `address` (so constructor storage writes land there), install the
   * returned runtime code there, and credit `address` with the constructor's value.
   */
  async deployAt(
    address: Address,
    creation: CreationCode,
    caller: Address = SYSTEM_ADDRESS,
    abi?: Abi,
  ): Promise<void> {
    const addr = createAddressFromString(address);
    await this.vm.stateManager.putAccount(addr, createAccount({ nonce: 1n, balance: creation.value }));
    await this.freshJournal();
    const exec = await this.vm.evm.runCode({
      ...this.context(caller),
      to: addr,
      code: hexToBytes(creation.data),
      data: new Uint8Array(),
      value: creation.value,
      gasLimit: SYSTEM_CALL_GAS_LIMIT,
    });
    this.throwIfFailed(exec, abi);
    await this.vm.stateManager.putCode(addr, exec.returnValue);
  }

  /** eth_call-like static call; reverts throw RevertError. */
  async read<const abi extends Abi, fn extends ReadName<abi>>(
    p: ReadParams<abi, fn>,
  ): Promise<ContractFunctionReturnType<abi, "pure" | "view", fn>> {
    const data = encodeFunctionData({ abi: p.abi, functionName: p.functionName, args: p.args } as never);
    await this.freshJournal();
    const res = await this.vm.evm.runCall({
      ...this.context(p.from ?? "0x0000000000000000000000000000000000000000"),
      to: createAddressFromString(p.address),
      data: hexToBytes(data),
      isStatic: true,
      gasLimit: 50_000_000n,
      skipBalance: true,
    });
    this.throwIfFailed(res.execResult, p.abi);
    return decodeFunctionResult({
      abi: p.abi,
      functionName: p.functionName,
      data: bytesToHex(res.execResult.returnValue),
    } as never) as ContractFunctionReturnType<abi, "pure" | "view", fn>;
  }

  /**
   * A call with ready-made calldata (as the node sends system calls). `mintValue` credits the
   * caller with `value` first if it lacks it. Returns the raw execution result; reverts throw.
   */
  async call(p: {
    readonly to: Address;
    readonly data: Hex;
    readonly from: Address;
    readonly value?: bigint;
    readonly mintValue?: boolean;
  }): Promise<{ readonly returnData: Hex; readonly gasUsed: bigint }> {
    await this.freshJournal();
    const res = await this.vm.evm.runCall({
      ...this.context(p.from),
      to: createAddressFromString(p.to),
      data: hexToBytes(p.data),
      value: p.value ?? 0n,
      gasLimit: SYSTEM_CALL_GAS_LIMIT,
      skipBalance: p.mintValue ?? false,
    });
    this.throwIfFailed(res.execResult);
    return { returnData: bytesToHex(res.execResult.returnValue), gasUsed: res.execResult.executionGasUsed };
  }

  /** A state-changing call from `from`; reverts throw RevertError (and change nothing). */
  async write<const abi extends Abi, fn extends WriteName<abi>>(
    p: WriteParams<abi, fn>,
  ): Promise<CallResult<ContractFunctionReturnType<abi, "nonpayable" | "payable", fn>>> {
    const data = encodeFunctionData({ abi: p.abi, functionName: p.functionName, args: p.args } as never);
    await this.freshJournal();
    const res = await this.vm.evm.runCall({
      ...this.context(p.from),
      to: createAddressFromString(p.address),
      data: hexToBytes(data),
      value: p.value ?? 0n,
      gasLimit: p.gasLimit ?? SYSTEM_CALL_GAS_LIMIT,
      skipBalance: p.mintValue ?? false,
    });
    this.throwIfFailed(res.execResult, p.abi);
    const returnData = bytesToHex(res.execResult.returnValue);
    const result = decodeFunctionResult({
      abi: p.abi,
      functionName: p.functionName,
      data: returnData,
    } as never) as ContractFunctionReturnType<abi, "nonpayable" | "payable", fn>;
    return {
      result,
      gasUsed: res.execResult.executionGasUsed,
      events: this.decodeLogs(res.execResult, p.abi),
    };
  }

  /** A system call as the node makes it: from SYSTEM_ADDRESS, value minted to it, 30M gas. */
  async systemCall<const abi extends Abi, fn extends WriteName<abi>>(
    p: Omit<WriteParams<abi, fn>, "from" | "mintValue">,
  ): Promise<CallResult<ContractFunctionReturnType<abi, "nonpayable" | "payable", fn>>> {
    return this.write({ ...p, from: SYSTEM_ADDRESS, mintValue: true } as WriteParams<abi, fn>);
  }

  /** Events named `eventName` in `result`. */
  static events<const abi extends Abi, name extends ContractEventName<abi>>(
    result: CallResult<unknown>,
    _abi: abi,
    eventName: name,
  ): DecodeEventLogReturnType<abi, name>["args"][] {
    return result.events
      .filter((e) => e.eventName === eventName)
      .map((e) => e.args as DecodeEventLogReturnType<abi, name>["args"]);
  }

  /** Start every call with an empty journal, as a new transaction does, so cold/warm gas is real. */
  private async freshJournal(): Promise<void> {
    await this.vm.evm.journal.cleanup();
  }

  private context(caller: Address): Pick<EVMRunCallOpts, "block" | "caller" | "origin" | "gasPrice"> {
    const callerAddress = createAddressFromString(caller);
    return { block: this.block(), caller: callerAddress, origin: callerAddress, gasPrice: 0n };
  }

  private block(): EvmBlock {
    return {
      header: {
        number: this.blockNumber,
        coinbase: createAddressFromString(this.coinbase),
        timestamp: this.timestamp,
        difficulty: 0n,
        prevRandao: new Uint8Array(32),
        gasLimit: 60_000_000n,
        baseFeePerGas: 0n,
        getBlobGasPrice: () => 1n,
      },
    };
  }

  private throwIfFailed(exec: ExecResult, abi?: Abi): void {
    if (exec.exceptionError) {
      throw new RevertError(bytesToHex(exec.returnValue), exec.exceptionError.error, abi);
    }
  }

  private decodeLogs(exec: ExecResult, abi: Abi): DecodedEvent[] {
    const out: DecodedEvent[] = [];
    for (const [address, topics, data] of exec.logs ?? []) {
      try {
        const decoded = decodeEventLog({
          abi,
          data: bytesToHex(data),
          topics: topics.map((t) => bytesToHex(t)) as [Hex, ...Hex[]],
        });
        out.push({
          address: getAddress(bytesToHex(address)),
          eventName: decoded.eventName ?? "",
          args: (decoded.args ?? {}) as Record<string, unknown>,
        });
      } catch {
        // a log from another contract
      }
    }
    return out;
  }
}

/** A deterministic checksummed test address: `testAccount(1)` = 0x…0A0001-style, distinct per `i`. */
export function testAccount(i: number): Address {
  return getAddress(`0x${(0xa0000 + i).toString(16).padStart(40, "0")}`);
}
