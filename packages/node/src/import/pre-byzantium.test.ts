import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RLP } from "@ethereumjs/rlp";
import { createLegacyTx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { buildBlock, createVM } from "@ethereumjs/vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openChain } from "../chain/open-chain.js";
import { createNodeConfig } from "../config/node-config.js";
import { rpc } from "../e2e/clients.js";
import { createNode, type StrataNode } from "../node.js";
import { datadirNetwork, networkFromGenesis } from "./datadir-network.js";
import { importChainFile } from "./import-chain.js";
import { initDatadir } from "./init-datadir.js";

const KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const SENDER = "f39fd6e51aad88f6f4ce6ab8827279cfffb92266";

/** A proof-of-work genesis whose blocks follow Spurious Dragon: receipts carry a state root, not a status. */
const GENESIS = {
  config: { chainId: 4545, homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0 },
  nonce: "0x0",
  timestamp: "0x0",
  extraData: "0x",
  gasLimit: "0x7a1200",
  difficulty: "0x20000",
  alloc: { [SENDER]: { balance: "0x3635c9adc5dea00000" } },
};

/** Block 1 of {@link GENESIS}, holding one transfer, built and executed by @ethereumjs. */
async function buildTransferBlock(): Promise<{ block: Uint8Array; txHash: string }> {
  const opened = await openChain(networkFromGenesis(GENESIS, "pre-Byzantium genesis"), null);
  try {
    const parent = opened.chain.head;
    const common = opened.common.copy();
    common.setHardforkBy({ blockNumber: 1n });
    const vm = await createVM({
      common,
      stateManager: opened.chain.states.at(parent.header.stateRoot, "map"),
      blockchain: opened.chainView,
    });
    const builder = await buildBlock(vm, {
      parentBlock: parent,
      headerData: { number: 1n, timestamp: 15n, gasLimit: parent.header.gasLimit },
      blockOpts: { calcDifficultyFromHeader: parent.header, putBlockIntoBlockchain: false },
    });
    const tx = createLegacyTx(
      {
        nonce: 0n,
        to: "0x00000000000000000000000000000000000000aa",
        value: 1n,
        gasLimit: 21_000n,
        gasPrice: 1n,
      },
      { common },
    ).sign(KEY);
    await builder.addTransaction(tx);
    const { block } = await builder.build();
    return { block: block.serialize(), txHash: bytesToHex(tx.hash()) };
  } finally {
    await opened.close();
  }
}

describe("an imported chain from before Byzantium", () => {
  let root: string;
  let node: StrataNode;
  let txHash: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "strata-pre-byzantium-"));
    const genesisFile = join(root, "genesis.json");
    writeFileSync(genesisFile, JSON.stringify(GENESIS));
    const datadir = join(root, "data");
    await initDatadir(genesisFile, datadir);
    const built = await buildTransferBlock();
    txHash = built.txHash;
    const config = createNodeConfig({
      network: datadirNetwork(datadir),
      datadir,
      logLevel: "silent",
      reporter: null,
      rpc: { port: 0 },
      p2p: { enabled: false },
    });
    await importChainFile(config.network, datadir, built.block);
    node = await createNode(config);
    await node.start();
  }, 60_000);
  afterAll(async () => {
    await node?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("answers receipts with the post-transaction state root and no status", async () => {
    const receipt = (await rpc(node.rpcUrl, "eth_getTransactionReceipt", [txHash])).result as Record<
      string,
      unknown
    >;
    expect(receipt).not.toHaveProperty("status");
    const raw = (await rpc(node.rpcUrl, "debug_getRawReceipts", ["0x1"])).result as `0x${string}`[];
    const replayedRoot = (RLP.decode(hexToBytes(raw[0]!)) as Uint8Array[])[0]!;
    expect(receipt.root).toBe(bytesToHex(replayedRoot));
    const blockReceipts = (await rpc(node.rpcUrl, "eth_getBlockReceipts", ["0x1"])).result as unknown[];
    expect(blockReceipts).toEqual([receipt]);
  });

  it("traces its transactions", async () => {
    const trace = await rpc(node.rpcUrl, "debug_traceTransaction", [txHash]);
    expect(trace.result).toEqual({ gas: 21000, failed: false, returnValue: "0x", structLogs: [] });
  });
});
