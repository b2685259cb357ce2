import { type BlockHeader, createBlock } from "@ethereumjs/block";
import { createCommonFromGethGenesis } from "@ethereumjs/common";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { loadNetwork } from "../config/network.js";
import { signVote, verifyAttestation } from "./attestation.js";
import { FinalityGadget } from "./finality.js";
import type { ActiveValidator } from "./schedule.js";
import { addressOfPrivateKey, DEFAULT_VANITY, sealBlock } from "./seal.js";

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
function gadget(known: BlockHeader[], local: Uint8Array[] = [], head = 10n) {
  return new FinalityGadget({
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
});
