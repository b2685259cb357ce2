import type { TypedTransaction } from "@ethereumjs/tx";
import type { Chain, ChainMark } from "../chain/chain.js";
import type { FinalityGadget } from "../consensus/finality.js";
import type { DevStateEdit } from "../storage/state-edits.js";
import type { TxPool } from "../txpool/tx-pool.js";
import type { BlockProducer, DevClock } from "./block-producer.js";

/** What `evm_snapshot` keeps: the chain's head and checkpoints, the clock, the queued edits and the pool. */
interface Snapshot {
  readonly chain: ChainMark;
  readonly clock: DevClock;
  readonly edits: readonly DevStateEdit[];
  /** The pool's transactions, each sender's in nonce order. */
  readonly pool: readonly TypedTransaction[];
}

/** What {@link DevSnapshots} works on. */
export interface DevSnapshotsDeps {
  readonly chain: Chain;
  readonly producer: BlockProducer;
  readonly pool: TxPool;
  /** Votes and seals of the local validators; undefined on a network without consensus. */
  readonly finality: FinalityGadget | undefined;
}

/**
 * Snapshots of a development chain, as Hardhat keeps them (`evm_snapshot`, `evm_revert`) and
 * `anvil_reset`. A snapshot records where the chain stands (head and checkpoints), the clock of
 * block timestamps, the state edits queued for the next block and the pool's transactions; reverting
 * to it rewinds the chain (blocks above its head are deleted, see {@link Chain.rewind}), sets the
 * clock back to read what it read then, and puts the edits and the pool back as they were. Reverting
 * consumes the snapshot and every later one. Mining settings and impersonated accounts are left as
 * they are. Everything runs between block builds.
 */
export class DevSnapshots {
  private readonly taken = new Map<bigint, Snapshot>();
  private nextId = 1n;

  constructor(private readonly deps: DevSnapshotsDeps) {}

  /** Takes a snapshot of the chain as it stands; returns its id (1, 2, ... until the next reset). */
  take(): Promise<bigint> {
    const { chain, producer, pool } = this.deps;
    return producer.exclusive(async () => {
      const { pending, queued } = pool.content();
      const id = this.nextId++;
      this.taken.set(id, {
        chain: chain.mark(),
        clock: producer.clockState(),
        edits: producer.edits.peek() ?? [],
        pool: [...pending, ...queued].map((poolTx) => poolTx.tx),
      });
      return id;
    });
  }

  /**
   * Returns to snapshot `id` and forgets it with every later one; false (and nothing changed) when
   * there is no such snapshot.
   */
  revert(id: bigint): Promise<boolean> {
    const { producer, pool } = this.deps;
    return producer.exclusive(async () => {
      const snapshot = this.taken.get(id);
      if (!snapshot) return false;
      for (const taken of this.taken.keys()) if (taken >= id) this.taken.delete(taken);
      await this.rewind(snapshot.chain);
      producer.restoreClock(snapshot.clock);
      producer.edits.replace(snapshot.edits);
      pool.clear();
      // Checked against the head's state again; the snapshot's head state accepted them all.
      for (const tx of snapshot.pool) await pool.add(tx).catch(() => undefined);
      return true;
    });
  }

  /**
   * Returns the chain to its genesis, as `anvil_reset` does without forking: every block after
   * genesis deleted, the clock back on the wall clock, no queued edit, an empty pool and no snapshot.
   */
  reset(): Promise<void> {
    const { chain, producer, pool } = this.deps;
    return producer.exclusive(async () => {
      this.taken.clear();
      this.nextId = 1n;
      await this.rewind(chain.genesisMark());
      producer.resetClock();
      producer.edits.replace([]);
      pool.clear();
    });
  }

  private async rewind(mark: ChainMark): Promise<void> {
    await this.deps.chain.rewind(mark);
    await this.deps.finality?.rewind(mark.head.header.number);
  }
}
