import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BlockHeader, createBlock } from "@ethereumjs/block";
import { createCommonFromGethGenesis } from "@ethereumjs/common";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { SigningThread } from "../crypto/signing-thread.js";
import { LmdbKV } from "../storage/lmdb-kv.js";
import { recoverVoter, signVote, verifyAttestation } from "./attestation.js";
import { FinalityGadget } from "./finality.js";
import type { ActiveValidator } from "./schedule.js";
import { addressOfPrivateKey, DEFAULT_VANITY, sealBlock } from "./seal.js";
import { VOTE_JOURNAL_WINDOW, VoteJournal } from "./vote-journal.js";

const network = loadNetwork("dev");
const common = createCommonFromGethGenesis(network.genesis as never, { chain: "dev" });
common.setHardforkBy({ blockNumber: 0n, timestamp: 0n });
const chainId = BigInt(network.chainId);
const keys = [1, 2, 3, 4].map((b) => new Uint8Array(32).fill(b));
const voters: ActiveValidator[] = keys.map((k) => ({ address: addressOfPrivateKey(k), stake: 10n }));

function header(number: bigint, salt = 0): BlockHeader {
  const block = createBlock(
    {
      header: {
        number,
        timestamp: 100n + number + BigInt(salt),
        gasLimit: 30_000_000n,
        extraData: DEFAULT_VANITY,
      },
    },
    { common, setHardfork: false, skipConsensusFormatValidation: true },
  );
  return sealBlock(block, keys[0]!).header;
}

/** A gadget holding `local` keys, knowing the given headers, with the head at `head`. */
function gadget(
  known: BlockHeader[],
  local: Uint8Array[] = [],
  head = 10n,
  journal?: VoteJournal,
  signingThread?: SigningThread,
) {
  return new FinalityGadget({
    ...(journal ? { journal } : {}),
    ...(signingThread ? { signingThread } : {}),
    chainId,
    signers: new Map(local.map((k) => [addressOfPrivateKey(k), k])),
    isOffline: () => false,
    votersOf: async () => voters,
    headerByHash: (hash) => known.find((h) => Buffer.compare(h.hash(), hash) === 0),
    headNumber: () => head,
    logger: pino({ level: "silent" }),
  });
}

describe("finality gadget", () => {
  it("signs one vote per local validator and height, and attests once two thirds voted", async () => {
    const target = header(10n);
    const g = gadget([target], keys.slice(0, 2));
    expect(await g.signLocalVotes(target)).toHaveLength(2);
    expect(await g.signLocalVotes(target)).toHaveLength(0);
    // Two of four: no attestation yet.
    expect(g.attestationFor(target, voters)).toBeUndefined();
    expect(await g.addVote(signVote(chainId, 10n, target.hash(), keys[3]!))).toMatchObject({
      status: "added",
    });
    const attestation = g.attestationFor(target, voters)!;
    expect(attestation.bitmap).toBe(0b1011n);
    expect(verifyAttestation(attestation, target, voters, chainId)).toBeUndefined();
  });

  it("signs its votes on the signing thread, and in-thread once that thread has failed", async () => {
    const thread = SigningThread.start()!;
    const target = header(10n);
    const g = gadget([target], keys.slice(0, 3), 10n, undefined, thread);
    const votes = await g.signLocalVotes(target);
    expect(thread.batches).toBe(1);
    expect(votes).toEqual(keys.slice(0, 3).map((k) => signVote(chainId, 10n, target.hash(), k)));
    expect(votes.map((v) => recoverVoter(chainId, v))).toEqual(voters.slice(0, 3).map((v) => v.address));
    expect(g.attestationFor(target, voters)?.bitmap).toBe(0b0111n);
    thread.close();
    const next = header(11n);
    const after = gadget([next], keys.slice(0, 1), 11n, undefined, thread);
    expect(await after.signLocalVotes(next)).toEqual([signVote(chainId, 11n, next.hash(), keys[0]!)]);
    expect(thread.batches).toBe(1);
  });

  it("rejects bad signatures, non-validators and stale votes; deduplicates", async () => {
    const target = header(10n);
    const g = gadget([target]);
    const vote = signVote(chainId, 10n, target.hash(), keys[1]!);
    expect(await g.addVote(vote)).toMatchObject({ status: "added" });
    expect(await g.addVote(vote)).toEqual({ status: "duplicate" });
    const outsider = signVote(chainId, 10n, target.hash(), new Uint8Array(32).fill(9));
    expect(await g.addVote(outsider)).toMatchObject({
      status: "rejected",
      reason: /not an active validator/,
    });
    const forged = { ...vote, signature: Uint8Array.from(vote.signature, (b, i) => (i === 64 ? 7 : b)) };
    expect(await g.addVote(forged)).toMatchObject({ status: "rejected", reason: "invalid vote signature" });
    const wrongHeight = signVote(chainId, 9n, target.hash(), keys[2]!);
    expect(await g.addVote(wrongHeight)).toMatchObject({ status: "rejected", reason: /names height 9/ });
    // Sixteen heights behind the head, a vote can no longer go into any header.
    const later = gadget([target], [], 27n);
    expect(await later.addVote(signVote(chainId, 10n, target.hash(), keys[2]!))).toMatchObject({
      reason: "vote too old",
    });
  });

  it("holds votes for a block not yet imported, bounded, and counts them once it arrives", async () => {
    const known: BlockHeader[] = [];
    const g = gadget(known);
    const next = header(11n);
    expect(await g.addVote(signVote(chainId, 11n, next.hash(), keys[0]!))).toEqual({ status: "pending" });
    expect(await g.addVote(signVote(chainId, 30n, next.hash(), keys[0]!))).toMatchObject({
      reason: "vote too far ahead",
    });
    known.push(next);
    await g.onImportedHeader(next);
    await g.addVote(signVote(chainId, 11n, next.hash(), keys[1]!));
    await g.addVote(signVote(chainId, 11n, next.hash(), keys[2]!));
    expect(g.attestationFor(next, voters)?.bitmap).toBe(0b0111n);
  });

  it("keeps evidence of two votes or two seals at one height, once each", async () => {
    const [x, y] = [header(10n, 0), header(10n, 1)];
    const g = gadget([x, y]);
    const seen: string[] = [];
    g.events.on("evidence", (e) => seen.push(`${e.kind}:${e.validator}`));
    await g.addVote(signVote(chainId, 10n, x.hash(), keys[2]!));
    expect(await g.addVote(signVote(chainId, 10n, y.hash(), keys[2]!))).toMatchObject({
      status: "rejected",
      reason: /already voted/,
    });
    await g.addVote(signVote(chainId, 10n, y.hash(), keys[2]!));
    await g.onImportedHeader(x);
    await g.onImportedHeader(x);
    await g.onImportedHeader(y);
    expect(seen).toEqual([`vote:${voters[2]!.address}`, `seal:${voters[0]!.address}`]);
    expect(g.evidence).toHaveLength(2);
    // Seals far from the head are not remembered (bounded memory): no evidence from them.
    const [far1, far2] = [header(500n, 0), header(500n, 1)];
    await g.onImportedHeader(far1);
    await g.onImportedHeader(far2);
    expect(g.evidence).toHaveLength(2);
  });

  it("journals its own votes before publishing them and, reopened, never votes again at or below them", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "strata-votes-"));
    try {
      const [x, y, below, next] = [header(10n, 0), header(10n, 1), header(9n, 2), header(11n)];
      let kv = new LmdbKV(datadir);
      const before = gadget([x, y, below, next], keys.slice(0, 2), 10n, new VoteJournal(kv));
      const onDiskWhenPublished: number[] = [];
      before.events.on("vote", () => onDiskWhenPublished.push(new VoteJournal(kv).load().length));
      expect(await before.signLocalVotes(x)).toHaveLength(2);
      expect(onDiskWhenPublished).toEqual([2, 2]);
      await kv.close();

      // A restart: the chain reorganised to y at height 10 meanwhile.
      kv = new LmdbKV(datadir);
      const after = gadget([x, y, below, next], keys.slice(0, 2), 10n, new VoteJournal(kv));
      expect(await after.signLocalVotes(y)).toEqual([]);
      expect(await after.signLocalVotes(below)).toEqual([]);
      // Its votes for x still count towards x's attestation; the next height is voted at.
      expect(after.attestationFor(x, voters)?.bitmap).toBeUndefined();
      await after.addVote(signVote(chainId, 10n, x.hash(), keys[2]!));
      expect(after.attestationFor(x, voters)?.bitmap).toBe(0b0111n);
      expect(await after.signLocalVotes(next)).toHaveLength(2);
      // Without the journal the same restart would sign the conflicting vote.
      expect(await gadget([y], keys.slice(0, 2)).signLocalVotes(y)).toHaveLength(2);
      await kv.close();
    } finally {
      rmSync(datadir, { recursive: true, force: true });
    }
  });

  it("keeps each voter's latest heights only, and forgets the heights a dev rewind drops", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "strata-votes-"));
    const kv = new LmdbKV(datadir);
    try {
      const journal = new VoteJournal(kv, 8n);
      const voter = voters[0]!.address;
      for (let n = 1n; n <= 20n; n++)
        await journal.record([{ voter, vote: signVote(chainId, n, header(n).hash(), keys[0]!) }]);
      expect(journal.load().map(({ vote }) => vote.number)).toEqual([13n, 14n, 15n, 16n, 17n, 18n, 19n, 20n]);
      await journal.forgetAbove(17n);
      expect(journal.load().map(({ vote }) => vote.number)).toEqual([13n, 14n, 15n, 16n, 17n]);
      expect(VOTE_JOURNAL_WINDOW).toBeGreaterThan(64n);

      // A rewound gadget votes again above the block returned to; its journal holds the new vote.
      const [first, again] = [header(21n, 0), header(21n, 1)];
      const g = gadget([first, again], keys.slice(0, 1), 21n, journal);
      expect(await g.signLocalVotes(first)).toHaveLength(1);
      await g.rewind(20n);
      expect(await g.signLocalVotes(again)).toHaveLength(1);
      expect(journal.load().at(-1)?.vote.hash).toEqual(again.hash());
      expect(await gadget([first], keys.slice(0, 1), 21n, journal).signLocalVotes(first)).toEqual([]);
    } finally {
      await kv.close();
      rmSync(datadir, { recursive: true, force: true });
    }
  });
});
