import { RLP } from "@ethereumjs/rlp";
import { AccountCache, CODEHASH_PREFIX, MerkleStateManager } from "@ethereumjs/statemanager";
import {
  Account,
  type Address,
  bytesToHex,
  concatBytes,
  createAccountFromRLP,
  createAddressFromString,
  hexToBytes,
  unpadBytes,
} from "@ethereumjs/util";
import { keccak256 } from "../../crypto/keccak.js";
import { type TrieNodeStore, updateTrie } from "./batch-trie.js";

/**
 * An account cache entry holding the decoded account. @ethereumjs' own entries hold the account's
 * RLP, so every read decodes it and every write encodes it: a value transfer reads and writes three
 * accounts several times. Here the encoding is made only when the cache is flushed to the trie.
 */
class DecodedAccountEntry {
  private encoded: Uint8Array | undefined;

  constructor(readonly account: Account) {}

  /** The account's RLP, as @ethereumjs' flush expects it; made once, on first use. */
  get accountRLP(): Uint8Array {
    this.encoded ??= this.account.serialize();
    return this.encoded;
  }
}

/** A slot known to be empty, as @ethereumjs' storage cache holds it. */
const EMPTY_SLOT = Uint8Array.of(0x80);

/** What a state's flushes wrote to storage tries and the code store (see {@link DecodedAccountStateManager.flushedStorageAndCode}). */
export interface FlushedStorageAndCode {
  /** The accounts' RLP (null: deleted). */
  readonly accounts: ReadonlyMap<string, Uint8Array | null>;
  readonly slots: ReadonlyMap<string, ReadonlyMap<string, Uint8Array>>;
  readonly code: ReadonlyMap<string, Uint8Array>;
  /**
   * Addresses whose whole storage was wiped (cleared for a contract creation or a self-destruct, or
   * the account deleted): of those, only the slots in `slots` are known.
   */
  readonly wiped: ReadonlySet<string>;
}

/** The accounts, slots and code written while a write log was open (see {@link DecodedAccountStateManager.openWriteLog}). */
export interface WriteLog {
  /** Accounts put or deleted, by lowercase hex address. */
  readonly accounts: Set<string>;
  /** Slots put, by lowercase hex address, each by unprefixed key hex. */
  readonly slots: Map<string, Set<string>>;
  readonly code: Set<string>;
  /** Accounts whose whole storage was cleared, or that were deleted (no list of slots says that). */
  readonly wiped: Set<string>;
}

function copyAccount(account: Account): Account {
  return new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
}

/**
 * An {@link AccountCache} that stores decoded accounts ({@link DecodedAccountEntry}); checkpoints,
 * reverts and flushes work as in the parent, which only ever reads `accountRLP` from an entry.
 */
export class DecodedAccountCache extends AccountCache {
  override put(address: Address, account: Account | undefined, couldBePartialAccount = false): void {
    if (account === undefined || couldBePartialAccount) {
      super.put(address, account, couldBePartialAccount);
      return;
    }
    // The same hex key @ethereumjs uses (unprefixed).
    const key = address.toString().slice(2);
    this._saveCachePreState(key);
    // A copy: the caller may keep changing its object, and a revert must find the value put here.
    const entry = new DecodedAccountEntry(copyAccount(account));
    if (this._lruCache) this._lruCache.set(key, entry);
    else this._orderedMapCache!.setElement(key, entry);
    this._stats.writes += 1;
  }
}

/**
 * A {@link MerkleStateManager} whose account reads are answered from a {@link DecodedAccountCache}
 * without decoding (every returned account is a fresh copy, as the parent's are), and whose flush
 * writes all changed accounts into the account trie, and each contract's changed slots into its
 * storage trie, in one pass per trie ({@link updateTrie}): the stock flush puts them one by one,
 * re-hashing the path from the root for each.
 */
export class DecodedAccountStateManager extends MerkleStateManager {
  /** Accounts written to the trie since {@link takeFlushedAccounts} (by lowercase hex; undefined: deleted). */
  private flushed = new Map<string, Account | undefined>();
  /** Slots and code written since {@link takeFlushedAccounts}, by lowercase hex address. */
  private flushedSlots = new Map<string, Map<string, Uint8Array>>();
  private flushedCode = new Map<string, Uint8Array>();
  /** The RLP of each flushed account (null: deleted), as the trie took it. */
  private flushedRlp = new Map<string, Uint8Array | null>();
  /** Addresses whose storage was cleared or whose account was deleted since {@link takeFlushedAccounts}. */
  private wiped = new Set<string>();
  private writeLog: WriteLog | undefined;

  /** Notes from now on which accounts, slots and code are written, until {@link closeWriteLog}. */
  openWriteLog(): void {
    this.writeLog = { accounts: new Set(), slots: new Map(), code: new Set(), wiped: new Set() };
  }

  /** What was written since {@link openWriteLog} (undefined when no log was open); stops noting. */
  closeWriteLog(): WriteLog | undefined {
    const log = this.writeLog;
    this.writeLog = undefined;
    return log;
  }

  /** The accounts written to the trie by the flushes since the last call, as they now stand. */
  takeFlushedAccounts(): Map<string, Account | undefined> {
    const accounts = this.flushed;
    this.flushed = new Map();
    this.flushedSlots = new Map();
    this.flushedCode = new Map();
    this.flushedRlp = new Map();
    this.wiped = new Set();
    return accounts;
  }

  /**
   * The accounts (their RLP), storage slots (by unprefixed key hex, each value as a storage cache
   * holds it: RLP, `0x80` for an emptied slot) and code the flushes since {@link takeFlushedAccounts}
   * wrote, by lowercase hex address: every value exactly as it stands after them.
   */
  flushedStorageAndCode(): FlushedStorageAndCode {
    return { accounts: this.flushedRlp, slots: this.flushedSlots, code: this.flushedCode, wiped: this.wiped };
  }

  override async clearStorage(address: Address): Promise<void> {
    this.wiped.add(address.toString());
    this.writeLog?.wiped.add(address.toString());
    return super.clearStorage(address);
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.wiped.add(address.toString());
    this.writeLog?.accounts.add(address.toString());
    this.writeLog?.wiped.add(address.toString());
    return super.deleteAccount(address);
  }

  override async putAccount(address: Address, account?: Account): Promise<void> {
    this.writeLog?.accounts.add(address.toString());
    return super.putAccount(address, account);
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.writeLog?.code.add(address.toString());
    return super.putCode(address, value);
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const entry = this._caches?.account?.get(address);
    if (entry instanceof DecodedAccountEntry) return copyAccount(entry.account);
    return super.getAccount(address);
  }

  /**
   * Puts a slot into the storage cache only; the flush writes it to the trie. (The stock method, by
   * an operator slip, also writes every slot straight to the storage trie, re-hashing its path and
   * the account's on each SSTORE.)
   */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const log = this.writeLog;
    if (log) {
      const slots = log.slots.get(address.toString()) ?? new Set<string>();
      log.slots.set(address.toString(), slots);
      slots.add(bytesToHex(key).slice(2));
    }
    const storage = this._caches?.storage;
    if (!storage) return super.putStorage(address, key, value);
    if (key.length !== 32) throw new Error("Storage key must be 32 bytes long");
    if (value.length > 32) throw new Error("Storage value cannot be longer than 32 bytes");
    if ((await this.getAccount(address)) === undefined)
      throw new Error("putStorage() called on non-existing account");
    storage.put(address, key, RLP.encode(unpadBytes(value)));
  }

  /** Writes every cached change to the tries, in the stock order: code, storage, then accounts. */
  override async flush(): Promise<void> {
    if (!this._caches?.account || this._prefixStorageTrieKeys) return super.flush();
    await this.flushCode();
    await this.flushStorage();
    await this.flushAccounts();
  }

  private async flushCode(): Promise<void> {
    for (const [addressHex, { code }] of this._caches?.code?.flush() ?? []) {
      if (code === undefined) continue;
      this.flushedCode.set(`0x${addressHex}`, code);
      const address = createAddressFromString(`0x${addressHex}`);
      const codeHash = keccak256(code);
      const key = this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash;
      // Code is stored by its hash: code the cache took in as it was read (or the same code deployed
      // again) is there already, and writing it again would rewrite kilobytes with each block.
      const codeDb = this._getCodeDB();
      if ((await codeDb.get(key)) === undefined) await codeDb.put(key, code);
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account());
      await this.modifyAccountFields(address, { codeHash });
    }
  }

  /** Each contract's changed slots go into its storage trie in one pass; its account gets the new root. */
  private async flushStorage(): Promise<void> {
    const byAddress = new Map<string, [Uint8Array, Uint8Array][]>();
    for (const [addressHex, keyHex, value] of this._caches?.storage?.flush() ?? []) {
      const decoded = RLP.decode(value ?? new Uint8Array()) as Uint8Array;
      const stored = decoded.length > 0 ? RLP.encode(decoded) : new Uint8Array();
      const written = this.flushedSlots.get(`0x${addressHex}`) ?? new Map<string, Uint8Array>();
      this.flushedSlots.set(`0x${addressHex}`, written);
      written.set(keyHex, decoded.length > 0 ? stored : EMPTY_SLOT);
      const slots = byAddress.get(addressHex) ?? [];
      byAddress.set(addressHex, slots);
      slots.push([keccak256(hexToBytes(`0x${keyHex}`)), stored]);
    }
    for (const [addressHex, slots] of byAddress) {
      const address = createAddressFromString(`0x${addressHex}`);
      const account = await this.getAccount(address);
      if (!account) continue;
      account.storageRoot = await updateTrie(account.storageRoot, slots, this.nodeStore(), keccak256);
      // A storage trie opened earlier for reads must follow the new root.
      this._storageTries[bytesToHex(keccak256(address.bytes)).slice(2)]?.root(account.storageRoot);
      await this.putAccount(address, account);
    }
  }

  private async flushAccounts(): Promise<void> {
    const updates = this._caches!.account!.flush().map(([addressHex, entry]) => {
      const encoded = entry.accountRLP;
      this.flushedRlp.set(`0x${addressHex}`, encoded ?? null);
      this.flushed.set(
        `0x${addressHex}`,
        encoded === undefined
          ? undefined
          : entry instanceof DecodedAccountEntry
            ? copyAccount(entry.account)
            : createAccountFromRLP(encoded),
      );
      return [keccak256(hexToBytes(`0x${addressHex}`)), encoded ?? new Uint8Array()] as const;
    });
    if (updates.length === 0) return;
    this._trie.root(await updateTrie(this._trie.root(), updates, this.nodeStore(), keccak256));
  }

  /** The account trie's node database (checkpoint-aware), as {@link updateTrie} reads and writes it. */
  private nodeStore(): TrieNodeStore {
    const nodes = this._trie.database();
    return {
      get: async (hash) => (await nodes.get(hash)) ?? undefined,
      put: (hash, node) => nodes.put(hash, node),
    };
  }
}
