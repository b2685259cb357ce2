import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBlockFromRLP } from "@ethereumjs/block";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import type { Hex } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { openChain } from "../chain/open-chain.js";
import { testConfig } from "../config/node-config.js";
import { attestsParent } from "../consensus/checkpoints.js";
import { PosEngine } from "../consensus/engine.js";
import { rawRpc, rpc } from "../e2e/clients.js";
import { BlockImporter } from "../import/block-importer.js";
import { startTestNode } from "../testing/test-node.js";
import { MAX_RUN_BLOCKS } from "./block-producer.js";

type RpcBlock = { number: Hex; hash: Hex; parentHash: Hex; timestamp: Hex; transactions: Hex[] };

const BLOCKS = 1_000;
const INTERVAL = 12n;

const dir = mkdtempSync(join(tmpdir(), "strata-mining-runs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An account every block's state holds: the EIP-2935 block-hash history contract (Prague). */
const HISTORY_CONTRACT = "0x0000f90827f1c53a10cb7a02335b175320002935";

/**
 * Reads the head and a state read at it until `until` settles: every head announced meanwhile (a
 * run is announced once written) must be readable at once, its block and its state. Returns the
 * heads seen.
 */
async function readHeadsUntil(url: string, until: Promise<unknown>): Promise<bigint[]> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const seen: bigint[] = [];
  while (!done) {
    const number = (await rpc(url, "eth_blockNumber")).result as Hex;
    const block = (await rpc(url, "eth_getBlockByNumber", [number, false])).result as RpcBlock | null;
    expect(block?.number).toBe(number);
    const balance = await rpc(url, "eth_getBalance", [HISTORY_CONTRACT, number]);
    expect(balance.error).toBeUndefined();
    seen.push(BigInt(number));
  }
  return seen;
}

describe.each([
  { store: "in memory", datadir: () => null, ephemeral: false },
  { store: "on an ephemeral LMDB datadir", datadir: () => join(dir, "ephemeral"), ephemeral: true },
  { store: "on an LMDB datadir", datadir: () => join(dir, "durable"), ephemeral: false },
])("anvil_mine of many blocks $store", ({ datadir, ephemeral }) => {
  it("mines 1,000 blocks that are all there, stamped on the interval, and that an importer verifies", async () => {
    const t = await startTestNode({ mining: { mode: "manual" }, datadir: datadir(), ephemeral });
    try {
      const start = BigInt((await rpc(t.url, "eth_blockNumber")).result as Hex);
      const parentTimestamp = t.node.chain.head.header.timestamp;
      const mining = rpc(t.url, "anvil_mine", [`0x${BLOCKS.toString(16)}`, `0x${INTERVAL.toString(16)}`]);
      // Runs are written while the next is built; what is announced is readable meanwhile.
      const heads = await readHeadsUntil(t.url, mining);
      expect((await mining).result).toBeNull();
      expect(heads.every((head, i) => i === 0 || head >= heads[i - 1]!)).toBe(true);
      // On LMDB, runs are announced one by one as they are written, not all at the end (the store in
      // memory writes a run at once, and the loop does not get a turn before the last).
      if (datadir() !== null)
        expect(heads.some((head) => head > start && head < start + BigInt(BLOCKS))).toBe(true);
      const minedAt = Date.now();

      // Every block, by number, in one batch: linked by parent hash and stamped on the interval.
      const batch = Array.from({ length: BLOCKS }, (_, i) => ({
        jsonrpc: "2.0",
        id: i,
        method: "eth_getBlockByNumber",
        params: [`0x${(start + 1n + BigInt(i)).toString(16)}`, false],
      }));
      const answers = (await rawRpc(t.url, JSON.stringify(batch))).body as { id: number; result: RpcBlock }[];
      const blocks = answers.sort((a, b) => a.id - b.id).map((a) => a.result);
      expect(blocks.every((b) => b !== null)).toBe(true);
      expect(BigInt(blocks[0]!.timestamp)).toBeGreaterThan(parentTimestamp);
      for (let i = 1; i < BLOCKS; i++) {
        const [parent, block] = [blocks[i - 1]!, blocks[i]!];
        expect(BigInt(block.number)).toBe(start + 1n + BigInt(i));
        expect(block.parentHash).toBe(parent.hash);
        expect(BigInt(block.timestamp) - BigInt(parent.timestamp)).toBe(INTERVAL);
        expect(block.transactions).toEqual([]);
      }
      const head = t.node.chain.head;
      expect(bytesToHex(head.hash())).toBe(blocks[BLOCKS - 1]!.hash);
      // The last two blocks of each run attest their parents, and only they: the chain is final up
      // to two blocks below the head, as with an attestation in every block.
      const attesting = blocks.flatMap((block, i) =>
        attestsParent(t.node.chain.blockByHash(hexToBytes(block.hash))!.header) ? [i] : [],
      );
      const runEnds = Array.from({ length: Math.ceil(BLOCKS / MAX_RUN_BLOCKS) }, (_, run) =>
        Math.min((run + 1) * MAX_RUN_BLOCKS, BLOCKS),
      );
      expect(attesting).toEqual(runEnds.flatMap((end) => [end - 2, end - 1]));
      expect(t.node.chain.finalized.header.number).toBe(head.header.number - 2n);
      expect(t.node.chain.safe.header.number).toBe(head.header.number - 1n);
      const finalized = t.node.chain.finalized.hash();
      // The clock continues after the last block: the next one is stamped the time since then later.
      await rpc(t.url, "evm_mine", []);
      const secondsSince = BigInt(Math.ceil((Date.now() - minedAt) / 1000));
      expect(t.node.chain.head.header.timestamp - head.header.timestamp).toBeLessThanOrEqual(
        secondsSince + 1n,
      );

      // A node that did not build them verifies each (seal, schedule, re-execution to the same header).
      const network = testConfig().network;
      const target = await openChain(network, null);
      try {
        const importer = new BlockImporter(
          target,
          new PosEngine(network, { signers: new Map(), waitForTimeouts: false }),
        );
        for (let n = 1n; n <= head.header.number; n++) {
          const block = createBlockFromRLP(t.node.chain.blockByNumber(n)!.serialize(), {
            common: target.common,
            setHardfork: true,
            skipConsensusFormatValidation: true,
          });
          expect(await importer.import(block)).toBe("imported");
        }
        expect(target.chain.head.hash()).toEqual(head.hash());
        expect(target.chain.finalized.hash()).toEqual(finalized);
      } finally {
        await target.close();
      }
    } finally {
      await t.stop();
    }
  }, 300_000);
});
