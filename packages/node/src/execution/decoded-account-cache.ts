import { AccountCache, MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, type Address } from "@ethereumjs/util";

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
 * without decoding. Every returned account is a fresh copy, as the parent's are.
 */
export class DecodedAccountStateManager extends MerkleStateManager {
  override async getAccount(address: Address): Promise<Account | undefined> {
    const entry = this._caches?.account?.get(address);
    if (entry instanceof DecodedAccountEntry) return copyAccount(entry.account);
    return super.getAccount(address);
  }
}
