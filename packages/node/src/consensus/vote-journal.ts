import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import type { KVStore, WriteOp } from "../storage/kv.js";
import { decodeVote, encodeVote, type Vote } from "./attestation.js";

/**
 * Heights kept per local validator, counted back from its latest vote: far more than a reorganisation
 * can go back (64 blocks) or a vote can still be used (16 heights behind the head).
 */
export const VOTE_JOURNAL_WINDOW = 256n;

const ADDRESS_LENGTH = 20;
const NUMBER_LENGTH = 8;

/** A local validator's own vote, as the journal keeps it. */
export interface OwnVote {
  /** The voter's lowercase address. */
  readonly voter: string;
  readonly vote: Vote;
}

/**
 * The local validators' own finality votes on disk (the chain store's `votes` bucket, key voter ‖
 * height), as BNB Smart Chain's vote journal: each vote is written, and flushed, before it is
 * published, and read back at start, so that a validator restarted after a crash never signs a
 * second vote at a height it voted at before (a double vote, slashable). Each voter's latest
 * {@link VOTE_JOURNAL_WINDOW} heights are kept; older entries are deleted as new ones come.
 */
export class VoteJournal {
  constructor(
    private readonly kv: KVStore,
    private readonly window = VOTE_JOURNAL_WINDOW,
  ) {}

  /** Every vote in the journal, by voter then height. */
  load(): OwnVote[] {
    const votes: OwnVote[] = [];
    const all = this.kv.keys(
      "votes",
      new Uint8Array(0),
      new Uint8Array(ADDRESS_LENGTH + NUMBER_LENGTH + 1).fill(0xff),
    );
    for (const key of all) {
      // A plain copy: a persistent store hands out its own buffers.
      const vote = decodeVote(new Uint8Array(this.kv.get("votes", key) ?? []));
      if (vote) votes.push({ voter: bytesToHex(key.subarray(0, ADDRESS_LENGTH)), vote });
    }
    return votes;
  }

  /**
   * Writes `votes` and drops each voter's entries that fell out of the window; resolves once that is
   * durable (the store's commit flushes).
   */
  async record(votes: readonly OwnVote[]): Promise<void> {
    if (votes.length === 0) return;
    const ops: WriteOp[] = [];
    for (const { voter, vote } of votes) {
      ops.push({ bucket: "votes", key: journalKey(voter, vote.number), value: encodeVote(vote) });
      if (vote.number >= this.window) {
        const below = journalKey(voter, vote.number - this.window + 1n);
        for (const key of this.kv.keys("votes", journalKey(voter, 0n), below))
          ops.push({ bucket: "votes", key, value: null });
      }
    }
    await this.kv.commit(ops);
  }

  /** Deletes every vote above height `number` (a dev rewind: those heights are voted at again). */
  async forgetAbove(number: bigint): Promise<void> {
    const ops: WriteOp[] = this.load()
      .filter(({ vote }) => vote.number > number)
      .map(({ voter, vote }) => ({ bucket: "votes", key: journalKey(voter, vote.number), value: null }));
    if (ops.length > 0) await this.kv.commit(ops);
  }
}

function journalKey(voter: string, number: bigint): Uint8Array {
  const key = new Uint8Array(ADDRESS_LENGTH + NUMBER_LENGTH);
  key.set(hexToBytes(voter as `0x${string}`), 0);
  new DataView(key.buffer).setBigUint64(ADDRESS_LENGTH, number);
  return key;
}
