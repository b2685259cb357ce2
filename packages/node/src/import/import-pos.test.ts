import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, concatBytes, hexToBytes } from "@ethereumjs/util";
import { parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChain } from "../chain/open-chain.js";
import { loadNetwork } from "../config/network.js";
import { rpc, viemClients } from "../e2e/clients.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { ImportError } from "./errors.js";
import { importChainFile } from "./import-chain.js";

type Nested = Uint8Array | Nested[];

/** Blocks exported from the source chain: past the first epoch end (20), so rewards are distributed. */
const BLOCKS = 22;

describe("strata import of a proof-of-stake chain", () => {
  let source: TestNode;
  let root: string;
  let blocks: Uint8Array[];
  let headHash: string;
  let headStateRoot: string;
  const network = loadNetwork("dev");

  beforeAll(async () => {
    source = await startTestNode({ mining: { mode: "manual" } });
    const { wallet } = viemClients(source.url, 0);
    for (let i = 0; i < BLOCKS; i++) {
      if (i % 5 === 0) {
        await wallet.sendTransaction({
          to: "0x00000000000000000000000000000000000000aa",
          value: parseEther("1"),
        });
      }
      await source.node.producer.mine(1);
    }
    blocks = [];
    for (let n = 1; n <= BLOCKS; n++) {
      const raw = await rpc(source.url, "debug_getRawBlock", [`0x${n.toString(16)}`]);
      blocks.push(hexToBytes(raw.result as `0x${string}`));
    }
    const head = source.node.chain.head;
    headHash = bytesToHex(head.hash());
    headStateRoot = bytesToHex(head.header.stateRoot);
    await source.stop();
    root = mkdtempSync(join(tmpdir(), "strata-import-pos-"));
  }, 120_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("re-executes sealed blocks through the engine and ends on the source's head and state root", async () => {
    const datadir = join(root, "copy");
    const summary = await importChainFile(network, datadir, concatBytes(...blocks));
    expect(summary).toMatchObject({ imported: BLOCKS, known: 0, head: BigInt(BLOCKS), headHash });
    const opened = await openChain(network, datadir);
    try {
      expect(bytesToHex(opened.chain.head.header.stateRoot)).toBe(headStateRoot);
      expect(opened.chain.store.receipts(opened.chain.head.hash())).toBeDefined();
    } finally {
      await opened.close();
    }
  });

  it("refuses a block whose seal was forged, keeping the blocks before it", async () => {
    const datadir = join(root, "forged");
    const fields = RLP.decode(blocks[2]!) as Nested[];
    const header = [...(fields[0] as Uint8Array[])];
    const extra = Uint8Array.from(header[12]!);
    extra[40] = extra[40]! ^ 0xff; // inside the seal's r
    header[12] = extra;
    const forged = RLP.encode([header, ...fields.slice(1)]);
    const file = concatBytes(blocks[0]!, blocks[1]!, forged);
    const failure = await importChainFile(network, datadir, file).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ImportError);
    expect((failure as ImportError).message).toMatch(/block 3|seal|sealer/);
    const opened = await openChain(network, datadir);
    try {
      expect(opened.chain.head.header.number).toBe(2n);
    } finally {
      await opened.close();
    }
  });
});
