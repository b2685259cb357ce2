import { createBlockFromRLP } from "@ethereumjs/block";
import { equalsBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "../config/node-config.js";
import { PosEngine } from "../consensus/engine.js";
import { devAccount, viemClients } from "../e2e/clients.js";
import { BlockExecutor } from "../execution/block/block-executor.js";
import type { WriteOp } from "../storage/kv.js";
import { withResealedField } from "../testing/forged-blocks.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { BlockVerifier } from "./block-verifier.js";
import { type OpenedChain, openChain } from "./open-chain.js";

describe("BlockVerifier", () => {
  let source: TestNode;
  let target: OpenedChain;
  let verifier: BlockVerifier;

  beforeAll(async () => {
    source = await startTestNode({ mining: { mode: "manual" } });
    const { wallet } = viemClients(source.url, 1);
    await wallet.sendTransaction({ to: devAccount(2).address, value: 5n });
    await source.node.producer.mine(3);
    const network = testConfig().network;
    target = await openChain(network, null);
    const engine = new PosEngine(network, { signers: new Map(), waitForTimeouts: false });
    const executor = new BlockExecutor(target.common, target.chain.states, target.trieDb, target.chainView);
    verifier = new BlockVerifier(target.chain, executor, target.trieDb, target.chainView, engine);
  });

  afterAll(async () => {
    await source?.stop();
    await target?.close();
  });

  /** The source's block `n`, decoded afresh under the target chain's rules. */
  const sourceBlock = (n: bigint) =>
    createBlockFromRLP(source.node.chain.blockByNumber(n)!.serialize(), {
      common: target.common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });

  it("classifies a block from the future as unknown-parent, before and after the cheap checks", async () => {
    const verdict = await verifier.verify(sourceBlock(2n));
    expect(verdict).toMatchObject({ ok: false, kind: "unknown-parent" });
    expect(await verifier.precheck(sourceBlock(2n))).toMatchObject({ ok: false, kind: "unknown-parent" });
  });

  it("refuses a bad seal in the precheck and a bad state root only on re-execution", async () => {
    const block = sourceBlock(1n);
    const unsealed = withResealedField(block, 3, block.header.stateRoot, new Uint8Array(32).fill(1));
    expect(await verifier.precheck(unsealed)).toMatchObject({ ok: false, kind: "seal" });
    const forged = withResealedField(block, 3, new Uint8Array(32).fill(0xab));
    expect(await verifier.precheck(forged)).toBeUndefined();
    const verdict = await verifier.verify(forged);
    expect(verdict).toMatchObject({ ok: false, kind: "execution" });
    expect(verdict.ok ? "" : verdict.reason).toMatch(/state root mismatch/);
    const late = withResealedField(block, 11, Uint8Array.of(0));
    expect(await verifier.verify(late)).toMatchObject({ ok: false, kind: "header" });
    expect(target.chain.head.header.number).toBe(0n);
  });

  it("accepts the real blocks in order, then calls them known, and a competing one a conflict", async () => {
    for (const n of [1n, 2n, 3n]) {
      const verdict = await verifier.verify(sourceBlock(n));
      expect(verdict.ok).toBe(true);
      if (verdict.ok) await target.chain.commit(verdict.built);
    }
    expect(target.chain.head.hash()).toEqual(source.node.chain.head.hash());
    expect(await verifier.verify(sourceBlock(2n))).toMatchObject({ ok: false, kind: "known" });
    const competing = withResealedField(sourceBlock(2n), 11, Uint8Array.of(0xff));
    expect(await verifier.verify(competing)).toMatchObject({ ok: false, kind: "conflict" });
    const stale = withResealedField(sourceBlock(3n), 11, Uint8Array.of(0xff));
    expect(await verifier.verify(stale)).toMatchObject({ ok: false, kind: "conflict" });
  });

  it("re-executes a block's transaction with the pool's copy when the node holds it (its sender known)", async () => {
    const network = testConfig().network;
    const other = await openChain(network, null);
    try {
      const block = sourceBlock(1n);
      const received = block.transactions[0]!;
      // A pool copy of the same signed transaction, whose sender the pool recovered at admission.
      let asked = 0;
      const copy = Object.create(received, {
        getSenderAddress: {
          value: () => {
            asked++;
            return received.getSenderAddress();
          },
        },
      }) as typeof received;
      const withPool = new BlockVerifier(
        other.chain,
        new BlockExecutor(other.common, other.chain.states, other.trieDb, other.chainView),
        other.trieDb,
        other.chainView,
        new PosEngine(network, { signers: new Map(), waitForTimeouts: false }),
        (hash) => (equalsBytes(hash, received.hash()) ? copy : undefined),
      );
      const verdict = await withPool.verify(block);
      expect(verdict.ok).toBe(true);
      expect(asked).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  // Durable before announced: LMDB makes a commit visible to readers before it has flushed it to
  // disk (lmdb-kv.test.ts: its commit resolves only after the flush). Here the store's commit is held
  // open after its writes became visible, as LMDB's is until the flush: the chain must neither
  // announce the block (newHead) nor serve it or its receipts (read through the chain's visibility
  // rule) until the commit resolves.
  it("announces and serves a committed block only once its commit is durable", async () => {
    const network = testConfig().network;
    const other = await openChain(network, null);
    try {
      const block = sourceBlock(1n);
      const verdict = await new BlockVerifier(
        other.chain,
        new BlockExecutor(other.common, other.chain.states, other.trieDb, other.chainView),
        other.trieDb,
        other.chainView,
        new PosEngine(network, { signers: new Map(), waitForTimeouts: false }),
      ).verify(block);
      if (!verdict.ok) throw new Error(verdict.reason);
      let flush!: () => void;
      const flushed = new Promise<void>((resolve) => {
        flush = resolve;
      });
      const kv = other.kv;
      const visible = kv.commit.bind(kv);
      kv.commit = async (ops: readonly WriteOp[]) => {
        await visible(ops);
        await flushed;
      };
      const announced: bigint[] = [];
      other.chain.events.on("newHead", (head) => announced.push(head.block.header.number));

      const committing = other.chain.commit(verdict.built);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const hash = block.hash();
      // On the store already (a reader of LMDB would see it), but neither announced nor served.
      expect(other.store.blockByHash(hash)).toBeDefined();
      expect(other.store.txLocation(block.transactions[0]!.hash())).toBeDefined();
      expect(announced).toEqual([]);
      expect(other.chain.head.header.number).toBe(0n);
      expect(other.chain.blockByHash(hash)).toBeUndefined();
      expect(other.chain.blockByNumber(1n)).toBeUndefined();

      flush();
      await committing;
      expect(announced).toEqual([1n]);
      expect(other.chain.blockByHash(hash)?.header.number).toBe(1n);
    } finally {
      await other.close();
    }
  });
});
