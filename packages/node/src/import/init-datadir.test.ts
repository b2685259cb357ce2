import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeConfig } from "../config/node-config.js";
import { TINY_CONTRACT, TINY_PRAGUE_TIME, tinyGenesis } from "../conformance/harness/tiny-chain.js";
import { createNode } from "../node.js";
import { DATADIR_NETWORK_FILE, datadirNetwork } from "./datadir-network.js";
import { InitError } from "./errors.js";
import { initDatadir } from "./init-datadir.js";

async function call(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await response.json()) as { result: unknown }).result;
}

describe("strata init", () => {
  let root: string;
  let genesisFile: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "strata-init-"));
    genesisFile = join(root, "genesis.json");
    writeFileSync(genesisFile, JSON.stringify(tinyGenesis()));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("writes the alloc's code, storage and nonces and the datadir then serves that chain", async () => {
    const datadir = join(root, "served");
    const result = await initDatadir(genesisFile, datadir);
    expect(result).toMatchObject({ chainId: 4242, created: true });
    expect(existsSync(join(datadir, DATADIR_NETWORK_FILE))).toBe(true);
    // No --network: the datadir's own network.
    const config = createNodeConfig({
      network: datadirNetwork(datadir),
      datadir,
      logLevel: "silent",
      rpc: { port: 0 },
      p2p: { enabled: false },
    });
    expect(config.mining.mode).toBe("manual");
    const node = await createNode(config);
    await node.start();
    try {
      const url = node.rpcUrl;
      expect(await call(url, "eth_chainId", [])).toBe("0x1092");
      expect(await call(url, "eth_getCode", [TINY_CONTRACT, "latest"])).toBe("0x60005460005260206000f3");
      expect(await call(url, "eth_getStorageAt", [TINY_CONTRACT, "0x0", "latest"])).toBe(
        `0x${"2a".padStart(64, "0")}`,
      );
      expect(await call(url, "eth_getStorageAt", [TINY_CONTRACT, "0x1", "latest"])).toBe(
        `0x${"07".padStart(64, "0")}`,
      );
      expect(await call(url, "eth_getTransactionCount", [TINY_CONTRACT, "latest"])).toBe("0x5");
      expect(await call(url, "eth_call", [{ to: TINY_CONTRACT }, "latest"])).toBe(
        `0x${"2a".padStart(64, "0")}`,
      );
      const genesis = (await call(url, "eth_getBlockByNumber", ["0x0", false])) as Record<string, unknown>;
      expect(genesis.hash).toBe(result.genesisHash);
      // Cancun at genesis, Prague later by timestamp: blob fields present, no requests hash yet.
      expect(genesis).toMatchObject({
        excessBlobGas: "0x0",
        blobGasUsed: "0x0",
        baseFeePerGas: "0x3b9aca00",
      });
      expect(genesis.requestsHash).toBeUndefined();
      expect(node.chain.common.getHardforkBy({ blockNumber: 1n, timestamp: BigInt(TINY_PRAGUE_TIME) })).toBe(
        "prague",
      );
    } finally {
      await node.stop();
    }
  });

  it("is idempotent for the same genesis and refuses another one", async () => {
    const datadir = join(root, "again");
    const first = await initDatadir(genesisFile, datadir);
    const second = await initDatadir(genesisFile, datadir);
    expect(second).toEqual({ ...first, created: false });
    const other = join(root, "other.json");
    writeFileSync(other, JSON.stringify(tinyGenesis(4243)));
    await expect(initDatadir(other, datadir)).rejects.toThrow(
      /was initialised with another genesis \(chain id 4242\)/,
    );
    // A datadir holding another chain's blocks but no remembered genesis is refused by its genesis hash.
    rmSync(join(datadir, DATADIR_NETWORK_FILE));
    const otherAlloc = join(root, "other-alloc.json");
    writeFileSync(otherAlloc, JSON.stringify({ ...tinyGenesis(), alloc: {} }));
    await expect(initDatadir(otherAlloc, datadir)).rejects.toThrow(/the datadir holds a different chain/);
  });

  it("names the problem of a bad genesis file", async () => {
    const datadir = join(root, "bad");
    await expect(initDatadir(join(root, "missing.json"), datadir)).rejects.toThrow(
      /^cannot read genesis .*missing\.json: ENOENT/,
    );
    const noGasLimit = join(root, "no-gas-limit.json");
    const { gasLimit: _gasLimit, ...rest } = tinyGenesis();
    writeFileSync(noGasLimit, JSON.stringify(rest));
    const error = await initDatadir(noGasLimit, datadir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InitError);
    expect((error as Error).message).toMatch(/genesis\.gasLimit/);
    expect(existsSync(join(datadir, DATADIR_NETWORK_FILE))).toBe(false);
  });
});
