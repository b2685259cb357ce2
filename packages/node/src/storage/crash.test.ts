import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseGwei } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { devAccount, rpc } from "../e2e/clients.js";

const BIN = fileURLToPath(new URL("../../../cli/bin/strata.js", import.meta.url));
const datadir = mkdtempSync(join(tmpdir(), "strata-crash-"));
const devDatadir = mkdtempSync(join(tmpdir(), "strata-crash-dev-"));
const children: ChildProcess[] = [];
let stderr = "";

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(datadir, { recursive: true, force: true });
  rmSync(devDatadir, { recursive: true, force: true });
});

async function startChild(
  dir = datadir,
  flags: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [BIN, "node", "--datadir", dir, "--rpc.port", "0", "--log-level", "warn", ...flags],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`node did not start: ${out}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /ready (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`node exited with ${code}: ${out}`)));
  });
  return { child, url };
}

const SENDERS = [1, 2, 3, 4, 5].map((i) => devAccount(i));

/**
 * Sends transfers from every sender and kills the node `killAfterMs` after the first receipt, while
 * the load goes on; collects the hashes that had a receipt before the kill.
 */
async function loadUntilKilled(
  url: string,
  child: ChildProcess,
  killAfterMs: number,
): Promise<Map<string, string>> {
  const acknowledged = new Map<string, string>();
  let alive = true;
  let killScheduled = false;
  child.once("exit", () => {
    alive = false;
  });
  const acknowledge = (hash: string, blockHash: string) => {
    acknowledged.set(hash, blockHash);
    if (killScheduled) return;
    killScheduled = true;
    setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  };
  await Promise.all(
    SENDERS.map(async (account) => {
      let nonce = Number((await rpc(url, "eth_getTransactionCount", [account.address, "pending"])).result);
      while (alive) {
        try {
          const raw = await account.signTransaction({
            chainId: 1337,
            type: "eip1559",
            nonce,
            to: devAccount(9).address,
            value: 1n,
            gas: 21_000n,
            maxFeePerGas: parseGwei("50"),
            maxPriorityFeePerGas: parseGwei("1"),
          });
          const sent = await rpc(url, "eth_sendRawTransaction", [raw]);
          if (!sent.result) continue;
          nonce++;
          for (let i = 0; i < 50 && alive; i++) {
            const receipt = (await rpc(url, "eth_getTransactionReceipt", [sent.result])).result as {
              blockHash: string;
            } | null;
            if (receipt) {
              acknowledge(sent.result as string, receipt.blockHash);
              break;
            }
          }
        } catch (error) {
          // A request cut by the kill fails; any other failure is a finding.
          await new Promise((resolve) => setTimeout(resolve, 200));
          if (alive)
            throw new Error(`load failed while the node was alive: ${(error as Error).cause ?? error}`);
          return;
        }
      }
    }),
  );
  return acknowledged;
}

describe("crash safety", () => {
  it("keeps every acknowledged transaction through repeated SIGKILL mid-load", async () => {
    const all = new Map<string, string>();
    for (const killAfter of [150, 600, 1300]) {
      const { child, url } = await startChild();
      const acknowledged = await loadUntilKilled(url, child, killAfter);
      expect(
        acknowledged.size,
        `kill after ${killAfter}: node exit ${child.exitCode} ${child.signalCode}: ${stderr.slice(-3000)}`,
      ).toBeGreaterThan(0);
      for (const [hash, blockHash] of acknowledged) all.set(hash, blockHash);

      const restarted = await startChild();
      for (const [hash, blockHash] of all) {
        const receipt = (await rpc(restarted.url, "eth_getTransactionReceipt", [hash])).result as {
          blockHash: string;
        } | null;
        expect(receipt?.blockHash, `receipt of ${hash}`).toBe(blockHash);
      }
      const head = (await rpc(restarted.url, "eth_getBlockByNumber", ["latest", false])).result as {
        number: string;
        parentHash: string;
      };
      let child_ = head;
      for (let n = Number(head.number) - 1; n >= Math.max(0, Number(head.number) - 20); n--) {
        const parent = (await rpc(restarted.url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false]))
          .result as { hash: string; number: string; parentHash: string };
        expect(parent.hash).toBe(child_.parentHash);
        child_ = parent;
      }
      const balance = await rpc(restarted.url, "eth_getBalance", [devAccount(9).address, "latest"]);
      expect(BigInt(balance.result as string)).toBeGreaterThan(0n);
      restarted.child.kill("SIGTERM");
      await new Promise((resolve) => restarted.child.once("exit", resolve));
      expect(restarted.child.exitCode).toBe(0);
    }
  }, 120_000);
});

type Head = { hash: string; number: string; parentHash: string };

async function latest(url: string): Promise<Head> {
  return (await rpc(url, "eth_getBlockByNumber", ["latest", false])).result as Head;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe("crash safety of dev rewinds and mining runs", () => {
  const flags = ["--mining", "manual", "--no-reporter", "--no-demo"];

  it("keeps an acknowledged evm_revert, and all or nothing of an anvil_mine run, through SIGKILL", async () => {
    let { child, url } = await startChild(devDatadir, flags);
    await rpc(url, "anvil_mine", [3]);
    const kept = await latest(url);
    const id = (await rpc(url, "evm_snapshot")).result;
    await rpc(url, "anvil_mine", [5]);
    const dropped = await latest(url);
    expect((await rpc(url, "evm_revert", [id])).result).toBe(true);
    await kill(child);

    ({ child, url } = await startChild(devDatadir, flags));
    expect((await latest(url)).hash).toBe(kept.hash);
    expect((await rpc(url, "eth_getBlockByHash", [dropped.hash, false])).result).toBeNull();
    // A long anvil_mine is committed in runs of blocks: killed in its middle, the chain keeps whole runs.
    void rpc(url, "anvil_mine", [5000]).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await kill(child);

    ({ child, url } = await startChild(devDatadir, flags));
    const head = await latest(url);
    expect(Number(head.number)).toBeGreaterThanOrEqual(Number(kept.number));
    let child_ = head;
    for (let n = Number(head.number) - 1; n >= Math.max(0, Number(head.number) - 300); n--) {
      const parent = (await rpc(url, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).result as Head;
      expect(parent.hash).toBe(child_.parentHash);
      child_ = parent;
    }
    // The head's state is all there: reads and the next block work.
    expect(
      BigInt((await rpc(url, "eth_getBalance", [devAccount(0).address, "latest"])).result as string),
    ).toBeGreaterThan(0n);
    await rpc(url, "evm_mine", []);
    expect(Number((await latest(url)).number)).toBe(Number(head.number) + 1);
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }, 120_000);
});
