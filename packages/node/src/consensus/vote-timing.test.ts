import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import type { Vote } from "./attestation.js";

let t: TestNode;

beforeAll(async () => {
  t = await startTestNode({ mining: { mode: "manual" } });
});

afterAll(async () => {
  await t?.stop();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("the local validators' votes for a new head", () => {
  it("are signed from the event-loop turn after the block's commit on: the block's answers go first", async () => {
    const votes: Vote[] = [];
    t.node.finality!.events.on("vote", (vote) => votes.push(vote));
    await t.node.producer.mine(1);
    const head = t.node.chain.head.header.number;
    // Mined and announced: whoever waited for the block (a transaction's sender) is answered now,
    // before the votes for it are signed.
    expect(votes.filter((vote) => vote.number === head)).toEqual([]);
    await nextTurn();
    // Every genesis validator of the dev network is local and votes (signed on the signing thread).
    await vi.waitFor(() => expect(votes.filter((vote) => vote.number === head)).toHaveLength(4));
  });
});
