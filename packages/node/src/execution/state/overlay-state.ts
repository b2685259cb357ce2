import type { AccountFields, StateManagerInterface } from "@ethereumjs/common";
import { OriginalStorageCache } from "@ethereumjs/statemanager";
import { Account, type Address, bytesToHex, KECCAK256_NULL } from "@ethereumjs/util";

type Undo = () => void;

/**
 * A throwaway state for read-only execution (`eth_call`, gas estimation): reads fall through to a
 * base state that is never written (the head's cached state, shared by every call), writes stay in
 * this overlay, and {@link OverlayStateManager.reset} drops them. Checkpoints keep an undo log, so
 * nested call frames revert cheaply and the base's caches stay warm across calls.
 */
export class OverlayStateManager implements StateManagerInterface {
  readonly originalStorageCache: OriginalStorageCache;
  /** Overlay accounts by address hex; `null` marks a deleted account. */
  private accounts = new Map<string, Account | null>();
  private code = new Map<string, Uint8Array>();
  private storage = new Map<string, Map<string, Uint8Array>>();
  /** Accounts whose base storage no longer applies (cleared, deleted or re-created). */
  private cleared = new Set<string>();
  private undoLog: Undo[][] = [];

  constructor(
    private base: StateManagerInterface,
    private readonly keccak: (data: Uint8Array) => Uint8Array,
  ) {
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this));
  }

  /** Drops every write and reads through to `base` from now on (a VM kept for calls at another state). */
  rebase(base: StateManagerInterface): void {
    this.base = base;
    this.reset();
  }

  /** Drops every write, ready for the next call. */
  reset(): void {
    this.accounts = new Map();
    this.code = new Map();
    this.storage = new Map();
    this.cleared = new Set();
    this.undoLog = [];
    this.originalStorageCache.clear();
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = address.toString();
    const own = this.accounts.get(key);
    if (own === null) return undefined;
    if (own !== undefined) return copy(own);
    return this.base.getAccount(address);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    this.setEntry(this.accounts, address.toString(), copy(account));
  }

  async deleteAccount(address: Address): Promise<void> {
    const key = address.toString();
    this.setEntry(this.accounts, key, null);
    this.markCleared(key);
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account();
    account.nonce = fields.nonce ?? account.nonce;
    account.balance = fields.balance ?? account.balance;
    account.storageRoot = fields.storageRoot ?? account.storageRoot;
    account.codeHash = fields.codeHash ?? account.codeHash;
    await this.putAccount(address, account);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.setEntry(this.code, address.toString(), value);
    await this.modifyAccountFields(address, {
      codeHash: value.length === 0 ? KECCAK256_NULL : this.keccak(value),
    });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const key = address.toString();
    const own = this.code.get(key);
    if (own !== undefined) return own;
    if (this.accounts.get(key) === null) return new Uint8Array();
    return this.base.getCode(address);
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, slot: Uint8Array): Promise<Uint8Array> {
    const key = address.toString();
    const own = this.storage.get(key)?.get(bytesToHex(slot));
    if (own !== undefined) return own;
    if (this.cleared.has(key)) return new Uint8Array();
    return this.base.getStorage(address, slot);
  }

  async putStorage(address: Address, slot: Uint8Array, value: Uint8Array): Promise<void> {
    const key = address.toString();
    let slots = this.storage.get(key);
    if (!slots) {
      slots = new Map();
      this.setEntry(this.storage, key, slots);
    }
    this.setEntry(slots, bytesToHex(slot), value);
  }

  async clearStorage(address: Address): Promise<void> {
    const key = address.toString();
    this.setEntry(this.storage, key, new Map());
    this.markCleared(key);
  }

  async checkpoint(): Promise<void> {
    this.undoLog.push([]);
  }

  async commit(): Promise<void> {
    const done = this.undoLog.pop() ?? [];
    const parent = this.undoLog[this.undoLog.length - 1];
    if (parent) parent.push(...done);
  }

  async revert(): Promise<void> {
    const done = this.undoLog.pop() ?? [];
    for (let i = done.length - 1; i >= 0; i--) done[i]!();
  }

  async getStateRoot(): Promise<Uint8Array> {
    throw new Error("an overlay state has no state root");
  }

  async setStateRoot(): Promise<void> {
    throw new Error("an overlay state cannot be repositioned");
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.base.hasStateRoot(root);
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    return new OverlayStateManager(this.base, this.keccak);
  }

  private setEntry<V>(map: Map<string, V>, key: string, value: V): void {
    const frame = this.undoLog[this.undoLog.length - 1];
    if (frame) {
      const had = map.has(key);
      const previous = map.get(key);
      frame.push(() => (had ? map.set(key, previous as V) : map.delete(key)));
    }
    map.set(key, value);
  }

  private markCleared(key: string): void {
    if (this.cleared.has(key)) return;
    this.cleared.add(key);
    this.undoLog[this.undoLog.length - 1]?.push(() => this.cleared.delete(key));
  }
}

function copy(account: Account): Account {
  return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
}
