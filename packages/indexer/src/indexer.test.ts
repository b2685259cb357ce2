import { type Database, indexerDb, openDatabase } from "@strata/db";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScratchDatabase, scratchDatabase } from "../../../test/support/scratch-database.js";
import { type Activity, type DevChain, devAccount, seedActivity, startDevChain } from "./e2e/fixtures.js";
import { Indexer } from "./indexer.js";
import { RpcClient } from "./rpc-client.js";

const silent = pino({ level: "silent" });

async function counts(db: Database) {
  const [row] = await db.query<Record<string, bigint>>(
    `SELECT (SELECT count(*) FROM blocks)::int8 AS blocks, (SELECT count(*) FROM transactions)::int8 AS transactions,
            (SELECT count(*) FROM receipts)::int8 AS receipts, (SELECT count(*) FROM logs)::int8 AS logs,
            (SELECT count(*) FROM token_transfers)::int8 AS transfers, (SELECT count(*) FROM addresses)::int8 AS addresses,
            (SELECT count(*) FROM contracts)::int8 AS contracts, (SELECT count(*) FROM tokens)::int8 AS tokens`,
  );
  return row!;
}

describe("indexer on PostgreSQL", () => {
  let chain: DevChain;
  let activity: Activity;
  let scratch: ScratchDatabase;
  let db: Database;

  beforeAll(async () => {
    chain = await startDevChain();
    activity = await seedActivity(chain);
    scratch = await scratchDatabase();
    db = scratch.db;
  });
  afterAll(async () => {
    await scratch?.drop();
    await chain?.stop();
  });

  it("indexes blocks, transactions, receipts, logs, contracts, an ERC-20 and its transfers", async () => {
    const indexer = await Indexer.open({ rpcUrl: chain.url, db, logger: silent, wsUrl: null });
    const status = await indexer.sync();
    const head = Number(chain.node.chain.head.header.number);
    expect(status).toMatchObject({ indexedBlock: head, headBlock: head, lag: 0 });

    const c = await counts(db);
    expect(c.blocks).toBe(BigInt(head + 1));
    expect((await indexerDb.chainFigures(db)).totalTransactions).toBe(c.transactions);
    expect((await indexerDb.chainFigures(db)).totalAddresses).toBe(c.addresses);
    expect(c.transactions).toBe(4n);
    expect(c.receipts).toBe(4n);
    expect(c.contracts).toBe(1n);
    expect(c.tokens).toBe(1n);

    const [contract] = await db.query("SELECT * FROM contracts");
    expect(contract).toEqual({
      address: activity.token,
      creator: devAccount(0).address.toLowerCase(),
      creation_transaction: activity.deploy,
      block_number: expect.any(BigInt),
    });
    expect(await indexerDb.findToken(db, activity.token)).toMatchObject({
      name: "Test Token",
      symbol: "TTK",
      decimals: 18,
      total_supply: "1000000000000000000000000",
    });
    const transfers = await db.query<{
      from_address: string;
      to_address: string;
      value: string;
      transaction_hash: string;
    }>(
      "SELECT from_address, to_address, value, transaction_hash FROM token_transfers ORDER BY block_number, log_index",
    );
    expect(transfers).toEqual([
      {
        from_address: "0x0000000000000000000000000000000000000000",
        to_address: devAccount(0).address.toLowerCase(),
        value: "1000000000000000000000000",
        transaction_hash: activity.deploy,
      },
      {
        from_address: devAccount(0).address.toLowerCase(),
        to_address: devAccount(2).address.toLowerCase(),
        value: "250000000000000000000",
        transaction_hash: activity.tokenTransfer,
      },
    ]);
    const transfer = await indexerDb.findTransaction(db, activity.transfer);
    expect(transfer).toMatchObject({
      value: "1500000000000000000",
      status: 1,
      to_address: devAccount(1).address.toLowerCase(),
    });
    const reverted = await indexerDb.findTransaction(db, activity.reverted);
    expect(reverted).toMatchObject({ status: 0, revert_reason: "ERC20: transfer amount exceeds balance" });
    expect(await indexerDb.addressKnown(db, devAccount(2).address.toLowerCase())).toBe(true);

    // Validator snapshots: one per validator for the epoch of the head (the node serves svc_getValidators).
    const validators = await new RpcClient(chain.url).call<{ address: string; stake: string }[]>(
      "svc_getValidators",
      [],
    );
    const snapshots = await db.query<{ address: string; stake: string; epoch: bigint }>(
      "SELECT address, stake, epoch FROM validator_snapshots ORDER BY address",
    );
    expect(snapshots.map((s) => [s.address, s.stake, s.epoch])).toEqual(
      validators
        .map((v) => [v.address.toLowerCase(), v.stake, 0n])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
  });

  it("is idempotent: syncing again or reopening writes nothing twice, and a block cannot be written twice", async () => {
    const before = await counts(db);
    const again = await Indexer.open({ rpcUrl: chain.url, db, logger: silent, wsUrl: null });
    await again.sync();
    await again.sync();
    expect(await counts(db)).toEqual(before);

    const state = (await indexerDb.readIndexerState(db))!;
    const [block] = await db.query<{ hash: string; parent_hash: string }>(
      "SELECT hash, parent_hash FROM blocks WHERE number = $1",
      [state.blockNumber],
    );
    const replay = {
      block: {
        number: state.blockNumber,
        hash: block!.hash,
        parentHash: block!.parent_hash,
        timestamp: 0n,
        miner: "0x",
        gasUsed: 0n,
        gasLimit: 0n,
        baseFeePerGas: null,
        transactionCount: 0,
        size: 0n,
      },
      transactions: [],
      receipts: [],
      logs: [],
      addresses: [],
      contracts: [],
      tokens: [],
      tokenTransfers: [],
      validatorSnapshots: [],
      oraclePrices: [],
    };
    await expect(indexerDb.writeBlock(db, replay)).rejects.toBeInstanceOf(
      indexerDb.IndexerStateConflictError,
    );
    expect(await counts(db)).toEqual(before);
  });

  it("follows new heads over WebSocket", async () => {
    const indexer = await Indexer.open({ rpcUrl: chain.url, db, logger: silent, pollIntervalMs: 60_000 });
    indexer.start();
    try {
      await expect.poll(() => indexer.status().subscribed, { timeout: 10_000 }).toBe(true);
      const { hash } = await chain.send(1, { to: devAccount(5).address, value: 1n });
      await expect
        .poll(async () => (await indexerDb.findTransaction(db, hash))?.status, { timeout: 15_000 })
        .toBe(1);
      expect(indexer.status().lag).toBe(0);
    } finally {
      await indexer.stop();
    }
  });

  it("rewinds to the common ancestor when the node's chain diverges, then indexes the new branch", async () => {
    const other = await startDevChain();
    try {
      const { hash: otherHash } = await other.send(7, { to: devAccount(8).address, value: 42n });
      const otherHead = Number(other.node.chain.head.header.number);
      const indexer = await Indexer.open({ rpcUrl: other.url, db, logger: silent, wsUrl: null });
      let status = await indexer.sync();
      while (status.indexedBlock !== otherHead) status = await indexer.sync();
      expect(status.reorgs).toBe(1);

      expect(await indexerDb.findTransaction(db, activity.transfer)).toBeUndefined();
      expect(await indexerDb.findToken(db, activity.token)).toBeUndefined();
      expect(await indexerDb.findTransaction(db, otherHash)).toMatchObject({ status: 1, value: "42" });
      const c = await counts(db);
      expect(c).toMatchObject({
        blocks: BigInt(otherHead + 1),
        transactions: 1n,
        tokens: 0n,
        transfers: 0n,
        contracts: 0n,
      });
      const blocks = await db.query<{ number: bigint; hash: string }>(
        "SELECT number, hash FROM blocks ORDER BY number",
      );
      const remote = await new RpcClient(other.url).batch<{ hash: string }>(
        blocks.map((b) => ({
          method: "eth_getBlockByNumber",
          params: [`0x${b.number.toString(16)}`, false],
        })),
      );
      expect(blocks.map((b) => b.hash)).toEqual(remote.map((b) => b.hash));
      // The totals kept by the writes followed the rewind.
      const [totals] = await db.query<{ transactions: bigint; addresses: bigint }>(
        "SELECT transactions, addresses FROM index_totals",
      );
      expect(totals).toEqual({ transactions: c.transactions, addresses: c.addresses });
    } finally {
      await other.stop();
    }
  });
});

describe("indexer on embedded PGlite", () => {
  it("indexes the same chain with the same SQL", async () => {
    const chain = await startDevChain();
    const db = await openDatabase();
    try {
      const activity = await seedActivity(chain);
      const indexer = await Indexer.open({ rpcUrl: chain.url, db, logger: silent, wsUrl: null });
      await indexer.sync();
      expect(await indexerDb.findToken(db, activity.token)).toMatchObject({ symbol: "TTK", decimals: 18 });
      expect(await indexerDb.findTransaction(db, activity.reverted)).toMatchObject({
        status: 0,
        revert_reason: "ERC20: transfer amount exceeds balance",
      });
      expect((await counts(db)).transfers).toBe(2n);
    } finally {
      await db.close();
      await chain.stop();
    }
  });
});
