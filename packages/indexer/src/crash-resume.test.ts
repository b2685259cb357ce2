import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Database } from "@strata/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScratchDatabase, scratchDatabase } from "../../../test/support/scratch-database.js";
import { type DevChain, devAccount, startDevChain } from "./e2e/fixtures.js";
import { RpcClient } from "./rpc-client.js";

const SCRIPT = fileURLToPath(new URL("./e2e/indexer-process.ts", import.meta.url));
const ROUNDS = 5;
const TXS_PER_ROUND = 16;
const EMPTY_BLOCKS_PER_ROUND = 30;

const children: ChildProcess[] = [];

function startIndexerProcess(rpcUrl: string, databaseUrl: string): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, rpcUrl, databaseUrl], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.once("exit", (code, signal) => {
    if (code !== 0 && signal === null)
      process.stderr.write(`indexer process exited with ${code}: ${stderr}\n`);
  });
  children.push(child);
  return child;
}

async function indexed(db: Database): Promise<bigint> {
  const [row] = await db
    .query<{ block_number: bigint }>("SELECT block_number FROM indexer_state")
    .catch(() => []);
  return row?.block_number ?? -1n;
}

describe("crash and resume", () => {
  let chain: DevChain;
  let scratch: ScratchDatabase;
  let db: Database;
  let head: bigint;

  beforeAll(async () => {
    // Manual mining: rounds of transfers mined into one block, then empty blocks, for a long backfill.
    chain = await startDevChain("manual");
    const rpc = new RpcClient(chain.url);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < TXS_PER_ROUND; i++) {
        await rpc.call("eth_sendTransaction", [
          {
            from: devAccount(i % 8).address,
            to: devAccount(9).address,
            value: `0x${(round + 1).toString(16)}`,
            nonce: `0x${(round * 2 + Math.floor(i / 8)).toString(16)}`,
          },
        ]);
      }
      await rpc.call("evm_mine");
      await rpc.call("anvil_mine", [`0x${EMPTY_BLOCKS_PER_ROUND.toString(16)}`]);
    }
    head = BigInt(await rpc.call<string>("eth_blockNumber"));
    scratch = await scratchDatabase();
    db = scratch.db;
  }, 180_000);
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await scratch?.drop();
    await chain?.stop();
  });

  it("loses and duplicates nothing when the indexer is killed with SIGKILL mid-backfill", async () => {
    const first = startIndexerProcess(chain.url, scratch.url);
    await expect.poll(() => indexed(db), { timeout: 60_000, interval: 20 }).toBeGreaterThan(10n);
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const atKill = await indexed(db);
    expect(atKill).toBeLessThan(head);

    const second = startIndexerProcess(chain.url, scratch.url);
    await expect.poll(() => indexed(db), { timeout: 90_000, interval: 100 }).toBe(head);
    second.kill("SIGTERM");
    await new Promise((resolve) => second.once("exit", resolve));

    const [row] = await db.query<Record<string, bigint>>(
      `SELECT count(*)::int8 AS blocks, min(number) AS first, max(number) AS last, sum(transaction_count)::int8 AS declared,
              (SELECT count(*) FROM transactions)::int8 AS transactions, (SELECT count(*) FROM receipts)::int8 AS receipts,
              (SELECT count(DISTINCT block_number) FROM transactions)::int8 AS tx_blocks
         FROM blocks`,
    );
    expect(row).toEqual({
      blocks: head + 1n,
      first: 0n,
      last: head,
      declared: BigInt(ROUNDS * TXS_PER_ROUND),
      transactions: BigInt(ROUNDS * TXS_PER_ROUND),
      receipts: BigInt(ROUNDS * TXS_PER_ROUND),
      tx_blocks: BigInt(ROUNDS),
    });
    const [value] = await db.query<{ total: string }>(
      "SELECT sum(value)::text AS total FROM transactions WHERE to_address = $1",
      [devAccount(9).address.toLowerCase()],
    );
    expect(value?.total).toBe(String(TXS_PER_ROUND * ((ROUNDS * (ROUNDS + 1)) / 2)));
  });
});
