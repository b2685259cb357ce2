import type { BlockHeader } from "@ethereumjs/block";
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import type { Logger } from "pino";
import { EventBus } from "../chain/event-bus.js";
import { keccak256 } from "../crypto/keccak.js";
import type { SigningThread } from "../crypto/signing-thread.js";
import {
  type Attestation,
  isQuorum,
  MAX_VOTERS,
  recoverVoter,
  signVote,
  type Vote,
  voteSigningHash,
} from "./attestation.js";
import type { ActiveValidator } from "./schedule.js";
import { recoverSealer, SEAL_LENGTH, signSeal, withExtraData } from "./seal.js";
import type { OwnVote, VoteJournal } from "./vote-journal.js";

/** Heights below the head whose votes are kept (older ones cannot go into any header any more). */
const KEEP_BEHIND = 16n;
/** Heights above the head whose votes are accepted before their block is known. */
const ACCEPT_AHEAD = 4n;
/** Votes for blocks not yet known, held until the block arrives. */
const MAX_PENDING_VOTES = 256;
/** Double-sign evidence kept (the newest). */
const MAX_EVIDENCE = 64;
/** Seals remembered per height (one per sealer and parent) for double-seal detection, over the last {@link KEEP_BEHIND} heights. */
const MAX_SEALS_PER_HEIGHT = 2 * MAX_VOTERS;

/** A header's seal as evidence: the RLP of the header without its seal (whose keccak the seal signs) and the seal. */
export interface SignedHeader {
  readonly hash: Uint8Array;
  readonly unsealedRlp: Uint8Array;
  readonly signature: Uint8Array;
}

/** Proof that a validator signed two different blocks, or two votes, at one height. */
export type DoubleSignEvidence =
  | {
      readonly kind: "vote";
      readonly validator: string;
      readonly number: bigint;
      readonly votes: readonly [Vote, Vote];
    }
  | {
      readonly kind: "seal";
      readonly validator: string;
      readonly number: bigint;
      readonly headers: readonly [SignedHeader, SignedHeader];
    };

/** What {@link FinalityGadget.addVote} did with a vote. */
export type VoteOutcome =
  | { readonly status: "added"; readonly voter: string }
  | { readonly status: "duplicate" }
  /** Held until its block is imported (its target is a little ahead of the head). */
  | { readonly status: "pending" }
  /** Dropped as out of date or beyond what is held (too old, too far ahead): nothing wrong with it. */
  | { readonly status: "ignored"; readonly reason: string }
  /** Dropped as invalid; the reason says why (a network scores the sender down). */
  | { readonly status: "rejected"; readonly reason: string };

/** The gadget's events. */
export interface FinalityEvents {
  /** A validator was caught signing twice at one height. */
  evidence: DoubleSignEvidence;
  /** A vote was accepted (from this node's keys or from elsewhere): the network publishes it. */
  vote: Vote;
}

/** What the gadget needs from the node. */
export interface FinalityOptions {
  readonly chainId: bigint;
  /** Keys this node votes with, by lowercase address. */
  readonly signers: ReadonlyMap<string, Uint8Array>;
  /** True for a local validator that is not to vote (dev: a simulated outage). */
  readonly isOffline: (address: string) => boolean;
  /** The voters of `header`: the active set read from its post-state, in the contract's order. */
  readonly votersOf: (header: BlockHeader) => Promise<readonly ActiveValidator[]>;
  /** A stored block's header by hash. */
  readonly headerByHash: (hash: Uint8Array) => BlockHeader | undefined;
  /** The current head's number. */
  readonly headNumber: () => bigint;
  readonly logger: Logger;
  /**
   * Where the local validators' own votes are written, durably, before they are published, and read
   * back from at start (a p2p node's chain store): restarted, a validator never votes again at or
   * below a height it voted at. Without one they are remembered in memory only.
   */
  readonly journal?: VoteJournal;
  /**
   * TEST ONLY (`--test.double-sign`): every local validator also signs a second, conflicting vote at
   * each height and publishes both, so that it is caught and slashed. Never set on a real validator.
   */
  readonly doubleSign?: boolean;
  /**
   * Where the local validators' votes are signed: a thread of their own, so that the thread building
   * blocks goes on meanwhile. Without one (or should it fail) they are signed in-thread.
   */
  readonly signingThread?: SigningThread | undefined;
}

interface HeightVotes {
  /** The first vote of each voter at this height, by lowercase address. */
  readonly byVoter: Map<string, Vote>;
}

/**
 * The finality gadget (BEP-126 style, docs/consensus.md "Finality"): signs this node's validators'
 * votes for each new head, collects votes from anywhere (checking signature, active-set membership
 * and duplicates, with bounded memory), builds the attestation a proposer puts into its header, and
 * catches double signing of votes and seals, keeping the evidence. Justified and finalized blocks
 * follow from the attestations in committed headers (consensus/checkpoints.ts, kept by the chain).
 */
export class FinalityGadget {
  readonly events = new EventBus<FinalityEvents>();
  private readonly votes = new Map<bigint, HeightVotes>();
  private readonly pending: Vote[] = [];
  private readonly seals = new Map<bigint, Map<string, SignedHeader>>();
  private readonly evidenceLog: DoubleSignEvidence[] = [];
  private readonly evidenceKeys = new Set<string>();
  /** The highest height each local validator has voted at: it never votes twice at one height. */
  private readonly lastVoted = new Map<string, bigint>();
  /** The signing in progress: one at a time, so that no height is voted at twice meanwhile. */
  private signing: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: FinalityOptions) {
    const head = options.headNumber();
    for (const { voter, vote } of options.journal?.load() ?? []) {
      if ((this.lastVoted.get(voter) ?? -1n) < vote.number) this.lastVoted.set(voter, vote.number);
      // Recent own votes count again for the attestation of their block.
      if (vote.number + KEEP_BEHIND >= head) this.heightVotes(vote.number).byVoter.set(voter, vote);
    }
  }

  /** Double-sign evidence caught so far (the newest {@link MAX_EVIDENCE}), oldest first. */
  get evidence(): readonly DoubleSignEvidence[] {
    return this.evidenceLog;
  }

  /**
   * Signs a vote for `head` with each local validator that is active at it (a voter of `head`), not
   * offline, and has not voted at this height or above yet (nor before a restart, with a journal);
   * writes them to the journal, then adds them and returns them for the network to publish.
   * Idempotent per height; calls run one after the other.
   */
  signLocalVotes(head: BlockHeader, voters?: readonly ActiveValidator[]): Promise<Vote[]> {
    const run = this.signing.then(() => this.signNow(head, voters));
    this.signing = run.catch(() => undefined);
    return run;
  }

  /**
   * Settles the votes handed to the signing thread now, signing here any it has not answered yet
   * (see {@link SigningThread.settleNow}): a proposer that awaits its parent's attestation next then
   * goes on in the same turn of the event loop.
   */
  settleVotesNow(): void {
    this.options.signingThread?.settleNow(signSeal);
  }

  private async signNow(head: BlockHeader, voters?: readonly ActiveValidator[]): Promise<Vote[]> {
    const { signers } = this.options;
    const local = [...signers.keys()].filter(
      (a) => !this.options.isOffline(a) && (this.lastVoted.get(a) ?? -1n) < head.number,
    );
    if (local.length === 0) return [];
    const set = voters ?? (await this.options.votersOf(head));
    const votedBy: string[] = [];
    const hashes: Uint8Array[] = [];
    const hash = head.hash();
    for (const validator of set) {
      if (!local.includes(validator.address) || (this.lastVoted.get(validator.address) ?? -1n) >= head.number)
        continue;
      this.lastVoted.set(validator.address, head.number);
      votedBy.push(validator.address);
      hashes.push(hash);
      if (this.options.doubleSign) {
        votedBy.push(validator.address);
        hashes.push(keccak256(hash));
      }
    }
    const signed = await this.signVotes(head.number, hashes, votedBy);
    const own: OwnVote[] = [];
    for (const [i, vote] of signed.entries()) {
      // The conflicting vote of a double-signing test validator is not its own vote to journal.
      if (equalsBytes(vote.hash, hash)) own.push({ voter: votedBy[i]!, vote });
    }
    // On disk before anyone can see them (the "vote" event publishes them).
    await this.options.journal?.record(own);
    for (const [i, vote] of signed.entries()) {
      const outcome = this.accept(vote, votedBy[i]!, set, head);
      // The conflicting vote is refused here (and kept as evidence); it still goes out to the peers.
      if (outcome.status === "rejected" && this.options.doubleSign) this.events.emit("vote", vote);
    }
    return signed;
  }

  /** Votes at height `number` for `hashes[i]` by `voters[i]`, signed on the signing thread when there is one. */
  private async signVotes(
    number: bigint,
    hashes: readonly Uint8Array[],
    voters: readonly string[],
  ): Promise<Vote[]> {
    const { chainId, signers, signingThread } = this.options;
    const keys = voters.map((voter) => signers.get(voter)!);
    if (signingThread?.available) {
      const digests = hashes.map((hash, i) => ({
        hash: voteSigningHash(chainId, number, hash),
        privateKey: keys[i]!,
      }));
      const signatures = await signingThread.sign(digests).catch((error: unknown) => {
        this.options.logger.warn({ err: error }, "the signing thread failed: votes are signed in-thread");
        return undefined;
      });
      if (signatures) return signatures.map((signature, i) => ({ number, hash: hashes[i]!, signature }));
    }
    return hashes.map((hash, i) => signVote(chainId, number, hash, keys[i]!));
  }

  /**
   * Takes a vote from anywhere (the network's votes topic, or local): checks its signature, that its
   * block is known and the voter is a voter of it (active at that height), and that it is not a
   * duplicate; a second, different vote of one voter at one height is double-sign evidence. Votes a
   * few heights ahead of the head for a block not yet imported are held (bounded) until it is.
   */
  async addVote(vote: Vote): Promise<VoteOutcome> {
    const head = this.options.headNumber();
    // A peer catching up or running ahead sends these honestly.
    if (vote.number + KEEP_BEHIND < head) return { status: "ignored", reason: "vote too old" };
    if (vote.number > head + ACCEPT_AHEAD) return { status: "ignored", reason: "vote too far ahead" };
    const voter = recoverVoter(this.options.chainId, vote);
    if (!voter) return { status: "rejected", reason: "invalid vote signature" };
    const known = this.votes.get(vote.number)?.byVoter.get(voter);
    if (known) {
      // The first vote passed the membership check; a second signature at this height, for another
      // block, proves double signing whether or not that block is known here.
      if (equalsBytes(known.hash, vote.hash)) return { status: "duplicate" };
      this.record({ kind: "vote", validator: voter, number: vote.number, votes: [known, vote] });
      return {
        status: "rejected",
        reason: `${voter} already voted for another block at height ${vote.number}`,
      };
    }
    const target = this.options.headerByHash(vote.hash);
    if (!target) {
      if (this.pending.length >= MAX_PENDING_VOTES)
        return { status: "ignored", reason: "too many pending votes" };
      if (this.pending.some((p) => equalsBytes(p.signature, vote.signature))) return { status: "duplicate" };
      this.pending.push(vote);
      return { status: "pending" };
    }
    if (target.number !== vote.number)
      return { status: "rejected", reason: `vote names height ${vote.number} for block ${target.number}` };
    const voters = await this.options.votersOf(target);
    if (!voters.some((v) => v.address === voter))
      return { status: "rejected", reason: `${voter} is not an active validator at block ${vote.number}` };
    return this.accept(vote, voter, voters, target);
  }

  /**
   * The attestation for `parent` a proposer puts into its header: the votes for exactly that block
   * from `voters` (the active set after `parent`), in set order, when they hold at least two thirds
   * of its stake; undefined otherwise.
   */
  attestationFor(parent: BlockHeader, voters: readonly ActiveValidator[]): Attestation | undefined {
    if (voters.length > MAX_VOTERS) return undefined;
    const byVoter = this.votes.get(parent.number)?.byVoter;
    if (!byVoter) return undefined;
    const hash = parent.hash();
    let bitmap = 0n;
    let voted = 0n;
    let total = 0n;
    const signatures: Uint8Array[] = [];
    voters.forEach((validator, i) => {
      total += validator.stake;
      const vote = byVoter.get(validator.address);
      if (!vote || !equalsBytes(vote.hash, hash)) return;
      bitmap |= 1n << BigInt(i);
      voted += validator.stake;
      signatures.push(vote.signature);
    });
    return isQuorum(voted, total) ? { number: parent.number, hash, bitmap, signatures } : undefined;
  }

  /**
   * Tells the gadget about a header that was imported or verified (any branch): its seal is
   * remembered for double-seal detection, votes held for it are checked, and votes too old to
   * matter are dropped.
   */
  async onImportedHeader(header: BlockHeader): Promise<void> {
    this.recordSeal(header);
    this.prune(this.options.headNumber());
    const hash = header.hash();
    const waiting = this.pending.filter((v) => equalsBytes(v.hash, hash));
    if (waiting.length === 0) return;
    this.pending.splice(0, this.pending.length, ...this.pending.filter((v) => !equalsBytes(v.hash, hash)));
    for (const vote of waiting) await this.addVote(vote);
  }

  /**
   * Forgets everything above height `number`, to which the chain was rewound (dev: `evm_revert`,
   * `anvil_reset`): votes, seals and held votes there, and the local validators' votes above it, so
   * that the blocks built again at those heights are voted for, and sealing them is not taken for
   * double signing. The journal forgets them too.
   */
  async rewind(number: bigint): Promise<void> {
    for (const height of this.votes.keys()) if (height > number) this.votes.delete(height);
    for (const height of this.seals.keys()) if (height > number) this.seals.delete(height);
    const kept = this.pending.filter((v) => v.number <= number);
    this.pending.splice(0, this.pending.length, ...kept);
    for (const [validator, height] of this.lastVoted) {
      if (height > number) this.lastVoted.set(validator, number);
    }
    await this.options.journal?.forgetAbove(number);
  }

  private accept(
    vote: Vote,
    voter: string,
    voters: readonly ActiveValidator[],
    target: BlockHeader,
  ): VoteOutcome {
    if (!voters.some((v) => v.address === voter))
      return { status: "rejected", reason: `${voter} is not an active validator at block ${target.number}` };
    const height = this.heightVotes(vote.number);
    const first = height.byVoter.get(voter);
    if (first) {
      if (equalsBytes(first.hash, vote.hash)) return { status: "duplicate" };
      this.record({ kind: "vote", validator: voter, number: vote.number, votes: [first, vote] });
      return {
        status: "rejected",
        reason: `${voter} already voted for another block at height ${vote.number}`,
      };
    }
    height.byVoter.set(voter, vote);
    this.events.emit("vote", vote);
    return { status: "added", voter };
  }

  private heightVotes(number: bigint): HeightVotes {
    let height = this.votes.get(number);
    if (!height) {
      height = { byVoter: new Map() };
      this.votes.set(number, height);
    }
    return height;
  }

  private recordSeal(header: BlockHeader): void {
    // Only heights where blocks are still being decided: memory stays bounded whatever arrives.
    const head = this.options.headNumber();
    if (header.number + KEEP_BEHIND < head || header.number > head + ACCEPT_AHEAD) return;
    const sealer = recoverSealer(header);
    if (!sealer) return;
    let atHeight = this.seals.get(header.number);
    if (!atHeight) {
      atHeight = new Map();
      this.seals.set(header.number, atHeight);
    }
    const signed = signedHeader(header);
    // Two blocks on one parent: sealing again at a height on another branch (after a reorg) is not an offence.
    const key = `${sealer}:${bytesToHex(header.parentHash)}`;
    const first = atHeight.get(key);
    if (!first) {
      if (atHeight.size < MAX_SEALS_PER_HEIGHT) atHeight.set(key, signed);
      return;
    }
    if (equalsBytes(first.hash, signed.hash)) return;
    this.record({ kind: "seal", validator: sealer, number: header.number, headers: [first, signed] });
  }

  private record(evidence: DoubleSignEvidence): void {
    const key = `${evidence.kind}:${evidence.validator}:${evidence.number}`;
    if (this.evidenceKeys.has(key)) return;
    this.evidenceKeys.add(key);
    this.evidenceLog.push(evidence);
    if (this.evidenceLog.length > MAX_EVIDENCE) {
      const dropped = this.evidenceLog.shift()!;
      this.evidenceKeys.delete(`${dropped.kind}:${dropped.validator}:${dropped.number}`);
    }
    this.options.logger.warn(
      { kind: evidence.kind, validator: evidence.validator, number: Number(evidence.number) },
      "double signing caught: evidence kept for Staking.slashDoubleSign",
    );
    this.events.emit("evidence", evidence);
  }

  private prune(head: bigint): void {
    for (const number of this.votes.keys()) if (number + KEEP_BEHIND < head) this.votes.delete(number);
    for (const number of this.seals.keys()) if (number + KEEP_BEHIND < head) this.seals.delete(number);
    if (this.pending.some((v) => v.number + KEEP_BEHIND < head))
      this.pending.splice(
        0,
        this.pending.length,
        ...this.pending.filter((v) => v.number + KEEP_BEHIND >= head),
      );
  }
}

/** The seal of `header` with the preimage it signs, as double-seal evidence carries it. */
export function signedHeader(header: BlockHeader): SignedHeader {
  const length = header.extraData.length;
  const unsealed = withExtraData(header, header.extraData.subarray(0, length - SEAL_LENGTH));
  return {
    hash: header.hash(),
    unsealedRlp: unsealed.serialize(),
    signature: header.extraData.slice(length - SEAL_LENGTH),
  };
}
