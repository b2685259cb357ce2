import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedChain, openChain } from "../../chain/open-chain.js";
import { testConfig } from "../../config/node-config.js";
import { createPosEngine } from "../../consensus/create-engine.js";
import type { PosEngine } from "../../consensus/engine.js";
import { deriveDevAccounts } from "../../dev-accounts.js";
import { buildStakingReadBlock } from "../../testing/executor-candidates.js";
import { BlockExecutor } from "./block-executor.js";

describe("a block's state writes", () => {
  const config = testConfig();
  let opened: OpenedChain;
  let engine: PosEngine;

  beforeAll(async () => {
    opened = await openChain(config.network, null);
    engine = createPosEngine(config, deriveDevAccounts(config.network))!;
  });
  afterAll(async () => {
    await opened?.close();
  });

  it("hold the trie nodes and code the block made, none it only read", async () => {
    const { chain, common, trieDb, chainView, kv } = opened;
    const key = deriveDevAccounts(config.network)[0]!;
    for (let nonce = 0n; nonce < 3n; nonce++) {
      // A new executor has no state carried from the block before: every read goes to the trie,
      // inside the checkpoints of the system calls and the transaction.
      const executor = new BlockExecutor(common, chain.states, trieDb, chainView);
      const built = await buildStakingReadBlock(executor, chain, engine, key, nonce);
      expect(built.receipts.map((r) => r.status)).toEqual([1]);
      const nodes = built.stateWrites.filter((op) => op.bucket === "trie");
      expect(nodes.length).toBeGreaterThan(0);
      expect(nodes.filter((op) => kv.get("trie", op.key) !== undefined)).toEqual([]);
      await chain.commit(built);
      expect(nodes.every((op) => kv.get("trie", op.key) !== undefined)).toBe(true);
    }
  });
});
