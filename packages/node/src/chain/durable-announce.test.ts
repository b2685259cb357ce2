import { createBlockFromRLP } from "@ethereumjs/block";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "../config/node-config.js";
import { PosEngine } from "../consensus/engine.js";
import { devAccount, viemClients } from "../e2e/clients.js";
import { BlockExecutor } from "../execution/block-executor.js";
import type { WriteOp } from "../storage/kv.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { BlockVerifier } from "./block-verifier.js";
import { type OpenedChain, openChain } from "./open-chain.js";

/*
 * Durable before announced: LMDB makes a commit visible to readers before it has flushed it to disk
 * (lmdb-kv.test.ts: its commit resolves only after the flush). Here the store's commit is held open
 * after its writes became visible, as LMDB's is until the flush: the chain must neither announce the
 * block (newHead) nor serve it or its receipts (both read through the chain's visibility rule) until
 * the commit resolves.
 */
describe("a committed block is announced and served only once its commit is durable", () => {
  let source: TestNode;
  let target: OpenedChain;
  let verifier: BlockVerifier;

  beforeAll(async () => {
    source = await startTestNode({ mining: { mode: "manual" } });
    const { wallet } = viemClients(source.url, 1);
    await wallet.sendTransaction({ to: devAccount(2).address, value: 5n });
    await source.node.producer.mine(1);
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

  it("keeps the block unannounced and unserved while the commit waits for its flush", async () => {
    const block = createBlockFromRLP(source.node.chain.blockByNumber(1n)!.serialize(), {
      common: target.common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });
    const verdict = await verifier.verify(block);
    if (!verdict.ok) throw new Error(verdict.reason);
    // Writes visible at once, the commit resolved only when the test lets the "flush" finish.
    let flush!: () => void;
    const flushed = new Promise<void>((resolve) => {
      flush = resolve;
    });
    const kv = target.kv;
    const visible = kv.commit.bind(kv);
    kv.commit = async (ops: readonly WriteOp[]) => {
      await visible(ops);
      await flushed;
    };
    const announced: bigint[] = [];
    target.chain.events.on("newHead", (head) => announced.push(head.block.header.number));

    const committing = target.chain.commit(verdict.built);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const hash = block.hash();
    const txHash = block.transactions[0]!.hash();
    // On the store already (a reader of LMDB would see it), but neither announced nor served.
    expect(target.store.blockByHash(hash)).toBeDefined();
    expect(target.store.txLocation(txHash)).toBeDefined();
    expect(announced).toEqual([]);
    expect(target.chain.head.header.number).toBe(0n);
    expect(target.chain.blockByHash(hash)).toBeUndefined();
    expect(target.chain.blockByNumber(1n)).toBeUndefined();

    flush();
    await committing;
    expect(announced).toEqual([1n]);
    expect(target.chain.blockByHash(hash)?.header.number).toBe(1n);
  });
});
