import type { StateManagerInterface } from "@ethereumjs/common";
import {
  type Address,
  bigIntToBytes,
  bytesToHex,
  createAddressFromBigInt,
  createAddressFromString,
  createContractAddress,
  createContractAddress2,
  KECCAK256_NULL,
  setLengthLeft,
} from "@ethereumjs/util";
import type { OpcodeStep, Tracer, TxEnd, TxStart } from "./tracer.js";

/** prestateTracer options (geth's `PrestateTracerConfig`). */
export interface PrestateTracerOptions {
  readonly diffMode?: boolean;
  readonly disableCode?: boolean;
  readonly disableStorage?: boolean;
  readonly includeEmpty?: boolean;
}

/** One account as the prestateTracer reports it; absent fields are zero or empty. */
export interface PrestateAccount {
  balance?: string;
  code?: string;
  codeHash?: string;
  nonce?: number;
  storage?: Record<string, string>;
}

interface Recorded {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
  storage: Map<string, string>;
  /** Whether the account did not exist when first looked up (geth decides emptiness then, not at the end). */
  empty: boolean;
}

const ZERO_WORD = `0x${"0".repeat(64)}`;
const DELEGATION_PREFIX = "0xef0100";
const ACCOUNT_OPS = new Set(["EXTCODECOPY", "EXTCODEHASH", "EXTCODESIZE", "BALANCE", "SELFDESTRUCT"]);
const CALL_OPS = new Set(["DELEGATECALL", "CALL", "STATICCALL", "CALLCODE"]);

/**
 * geth's prestateTracer: every account and storage slot the transaction touches, as it was before
 * the transaction; in diff mode, `pre` and `post` of what the transaction changed.
 */
export class PrestateTracer implements Tracer {
  readonly wantsOpcodes = true;
  private readonly pre = new Map<string, Recorded>();
  private readonly created = new Set<string>();
  private readonly deleted = new Set<string>();
  private readonly post = new Map<string, PrestateAccount>();
  private state: StateManagerInterface | undefined;

  /** `eip6780`: SELFDESTRUCT only deletes contracts created in the same transaction (Cancun). */
  constructor(
    private readonly options: PrestateTracerOptions,
    private readonly eip6780: boolean,
  ) {}

  async onTxStart(start: TxStart): Promise<void> {
    this.state = start.state;
    if (start.isCreate) this.created.add(start.to.toString());
    else await this.lookupDelegation(start.to);
    await this.lookupAccount(start.from);
    await this.lookupAccount(start.to);
    await this.lookupAccount(start.coinbase);
    for (const authority of start.authorities) await this.lookupAccount(authority);
  }

  async onOpcode(step: OpcodeStep): Promise<void> {
    const { stack, op } = step;
    const top = stack.length - 1;
    const caller = step.address;
    if ((op === "SLOAD" || op === "SSTORE") && top >= 0) {
      await this.lookupStorage(caller, stack[top]!);
    } else if (ACCOUNT_OPS.has(op) && top >= 0) {
      await this.lookupAccount(createAddressFromBigInt(stack[top]!));
      if (op === "SELFDESTRUCT" && (!this.eip6780 || this.created.has(caller.toString()))) {
        this.deleted.add(caller.toString());
      }
    } else if (CALL_OPS.has(op) && top >= 4) {
      const target = createAddressFromBigInt(stack[top - 1]!);
      await this.lookupAccount(target);
      await this.lookupDelegation(target);
    } else if (op === "CREATE") {
      const nonce = (await step.state.getAccount(caller))?.nonce ?? 0n;
      const address = createContractAddress(caller, nonce);
      await this.lookupAccount(address);
      this.created.add(address.toString());
    } else if (op === "CREATE2" && top >= 3) {
      const offset = Number(stack[top - 1]!);
      const size = Number(stack[top - 2]!);
      if (!Number.isSafeInteger(offset + size)) return;
      const init = new Uint8Array(size);
      init.set(step.memory.subarray(offset, offset + size));
      const salt = setLengthLeft(bigIntToBytes(stack[top - 3]!), 32);
      const address = createContractAddress2(caller, salt, init);
      await this.lookupAccount(address);
      this.created.add(address.toString());
    }
  }

  async onTxEnd(end: TxEnd): Promise<void> {
    if (this.options.diffMode) await this.processDiff(end.state);
    if (this.options.includeEmpty) return;
    for (const [address, account] of this.pre) if (account.empty) this.pre.delete(address);
  }

  result(): unknown {
    const pre = Object.fromEntries(
      [...this.pre].map(([address, account]) => [address, this.format(account)]),
    );
    if (!this.options.diffMode) return pre;
    return { post: Object.fromEntries(this.post), pre };
  }

  private format(account: Recorded): PrestateAccount {
    const out: PrestateAccount = { balance: `0x${account.balance.toString(16)}` };
    if (!this.options.disableCode && account.code.length > 0) out.code = bytesToHex(account.code);
    if (account.code.length > 0) out.codeHash = bytesToHex(account.codeHash);
    if (account.nonce > 0n) out.nonce = Number(account.nonce);
    if (!this.options.disableStorage && account.storage.size > 0)
      out.storage = Object.fromEntries(account.storage);
    return out;
  }

  private async processDiff(state: StateManagerInterface): Promise<void> {
    for (const [key, pre] of this.pre) {
      if (this.deleted.has(key)) continue;
      const address = createAddressFromString(key);
      const account = await state.getAccount(address);
      const code = await state.getCode(address);
      const post: PrestateAccount = {};
      let modified = false;
      const balance = account?.balance ?? 0n;
      if (balance !== pre.balance) {
        modified = true;
        post.balance = `0x${balance.toString(16)}`;
      }
      const nonce = account?.nonce ?? 0n;
      if (nonce !== pre.nonce) {
        modified = true;
        post.nonce = Number(nonce);
      }
      const codeHash = account?.codeHash ?? KECCAK256_NULL;
      if (bytesToHex(codeHash) !== bytesToHex(pre.codeHash)) {
        modified = true;
        post.codeHash = bytesToHex(codeHash);
      }
      if (!this.options.disableCode && bytesToHex(code) !== bytesToHex(pre.code)) {
        modified = true;
        post.code = bytesToHex(code);
      }
      if (!this.options.disableStorage) {
        const storage: Record<string, string> = {};
        for (const [slot, value] of [...pre.storage]) {
          if (value === ZERO_WORD) pre.storage.delete(slot);
          const now = await readSlot(state, address, slot);
          if (now === value) {
            pre.storage.delete(slot);
          } else {
            modified = true;
            if (now !== ZERO_WORD) storage[slot] = now;
          }
        }
        if (Object.keys(storage).length > 0) post.storage = storage;
      }
      if (modified) this.post.set(key, post);
      else this.pre.delete(key);
    }
  }

  private async lookupAccount(address: Address): Promise<void> {
    const key = address.toString();
    if (this.pre.has(key) || !this.state) return;
    const account = await this.state.getAccount(address);
    const code = await this.state.getCode(address);
    const balance = account?.balance ?? 0n;
    const nonce = account?.nonce ?? 0n;
    this.pre.set(key, {
      balance,
      nonce,
      code,
      codeHash: account?.codeHash ?? KECCAK256_NULL,
      storage: new Map(),
      empty: nonce === 0n && code.length === 0 && balance === 0n,
    });
  }

  private async lookupDelegation(address: Address): Promise<void> {
    if (!this.state) return;
    const code = await this.state.getCode(address);
    const hex = bytesToHex(code);
    if (code.length === 23 && hex.startsWith(DELEGATION_PREFIX)) {
      await this.lookupAccount(createAddressFromString(`0x${hex.slice(8)}`));
    }
  }

  private async lookupStorage(address: Address, slot: bigint): Promise<void> {
    if (this.options.disableStorage || !this.state) return;
    const account = this.pre.get(address.toString());
    if (!account) return;
    const key = `0x${slot.toString(16).padStart(64, "0")}`;
    if (account.storage.has(key)) return;
    account.storage.set(key, await readSlot(this.state, address, key));
  }
}

async function readSlot(state: StateManagerInterface, address: Address, slot: string): Promise<string> {
  const value = await state.getStorage(address, Uint8Array.from(Buffer.from(slot.slice(2), "hex")));
  return bytesToHex(setLengthLeft(value, 32));
}
