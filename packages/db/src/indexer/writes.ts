import type { Database, Queryable } from "../database.js";
import { ChainIdMismatchError, IndexerStateConflictError } from "./errors.js";
import type { IndexedBlock, IndexerState } from "./rows.js";
import {
  MAX_REVERT_REASON,
  MAX_TOKEN_TEXT,
  storableJson,
  storableText,
  storableTextOrNull,
} from "./safe-text.js";

/*
 * Writes of the indexer. A block is ONE statement: a chain of data-modifying CTEs fed by one JSON
 * document whose keys are the column names (`json_populate_recordset(NULL::table, …)`). The first CTE
 * advances `indexer_state` only if it points at the parent; every insert joins it, so a conflicting
 * write inserts nothing. One round trip, atomic like any single statement, on `pg` and PGlite alike.
 */

const text = (v: bigint | null) => (v === null ? null : v.toString());

const insert = (table: string, suffix = "") =>
  `${table}_rows AS (INSERT INTO ${table} SELECT r.* FROM state, json_populate_recordset(NULL::${table}, $3::json->'${table}') r ${suffix})`;

const CONFLICTS: Record<string, string> = {
  // RETURNING: the addresses seen for the first time are added to index_totals.
  addresses: "ON CONFLICT (address) DO NOTHING RETURNING 1",
  tokens: "ON CONFLICT (address) DO NOTHING",
  validator_snapshots: `ON CONFLICT (address, epoch) DO UPDATE SET block_number = EXCLUDED.block_number, stake = EXCLUDED.stake,
      self_stake = EXCLUDED.self_stake, delegated_stake = EXCLUDED.delegated_stake, commission = EXCLUDED.commission,
      uptime = EXCLUDED.uptime, status = EXCLUDED.status, blocks_proposed = EXCLUDED.blocks_proposed,
      blocks_missed = EXCLUDED.blocks_missed, jailed = EXCLUDED.jailed`,
  oracle_prices:
    "ON CONFLICT (asset, observed_at) DO UPDATE SET price = EXCLUDED.price, round_id = EXCLUDED.round_id, block_number = EXCLUDED.block_number",
};

const statements = new Map<string, string>();

/** The write statement for a block with rows in `tables` (only those get a CTE: less to plan). */
function writeStatement(tables: readonly string[]): string {
  const key = tables.join(",");
  let sql = statements.get(key);
  if (sql === undefined) {
    sql = `WITH state AS (
    UPDATE indexer_state SET block_number = $1, block_hash = $2, updated_at = now()
     WHERE id = 1 AND block_number = $1 - 1 AND set_config('synchronous_commit', 'off', true) IS NOT NULL
     RETURNING id),
  blocks_row AS (INSERT INTO blocks SELECT r.* FROM state, json_populate_record(NULL::blocks, $3::json->'blocks') r)
  ${tables.map((t) => `, ${insert(t, CONFLICTS[t])}`).join("\n  ")},
  totals_row AS (UPDATE index_totals SET transactions = transactions + $4,
      addresses = addresses + ${tables.includes("addresses") ? "(SELECT count(*) FROM addresses_rows)" : "0"}
     FROM state WHERE index_totals.id = 1)
SELECT count(*)::int4 AS written FROM state`;
    statements.set(key, sql);
  }
  return sql;
}

/** The block's rows keyed by table, with column names as keys. */
function blockDocument(data: IndexedBlock) {
  const { block } = data;
  const n = block.number.toString();
  return {
    blocks: {
      number: n,
      hash: block.hash,
      parent_hash: block.parentHash,
      timestamp: block.timestamp.toString(),
      miner: block.miner,
      gas_used: block.gasUsed.toString(),
      gas_limit: block.gasLimit.toString(),
      base_fee_per_gas: text(block.baseFeePerGas),
      transaction_count: block.transactionCount,
      size: block.size.toString(),
    },
    transactions: data.transactions.map((t) => ({
      hash: t.hash,
      block_number: n,
      block_hash: t.blockHash,
      tx_index: t.index,
      from_address: t.from,
      to_address: t.to,
      value: t.value.toString(),
      nonce: t.nonce.toString(),
      gas: t.gas.toString(),
      gas_price: text(t.gasPrice),
      max_fee_per_gas: text(t.maxFeePerGas),
      max_priority_fee_per_gas: text(t.maxPriorityFeePerGas),
      type: t.type,
      input: t.input,
    })),
    receipts: data.receipts.map((r) => ({
      transaction_hash: r.transactionHash,
      block_number: n,
      status: r.status,
      gas_used: r.gasUsed.toString(),
      cumulative_gas_used: r.cumulativeGasUsed.toString(),
      effective_gas_price: text(r.effectiveGasPrice),
      contract_address: r.contractAddress,
      revert_reason: storableTextOrNull(r.revertReason, MAX_REVERT_REASON),
    })),
    logs: data.logs.map((l) => ({
      block_number: n,
      log_index: l.logIndex,
      transaction_hash: l.transactionHash,
      transaction_index: l.transactionIndex,
      address: l.address,
      topic0: l.topics[0] ?? null,
      topic1: l.topics[1] ?? null,
      topic2: l.topics[2] ?? null,
      topic3: l.topics[3] ?? null,
      data: l.data,
    })),
    addresses: data.addresses.map((address) => ({ address, first_block: n })),
    contracts: data.contracts.map((c) => ({
      address: c.address,
      creator: c.creator,
      creation_transaction: c.creationTransaction,
      block_number: n,
    })),
    tokens: data.tokens.map((k) => ({
      address: k.address,
      name: storableTextOrNull(k.name, MAX_TOKEN_TEXT),
      symbol: storableTextOrNull(k.symbol, MAX_TOKEN_TEXT),
      decimals: k.decimals,
      total_supply: text(k.totalSupply),
      block_number: n,
    })),
    token_transfers: data.tokenTransfers.map((x) => ({
      block_number: n,
      log_index: x.logIndex,
      transaction_hash: x.transactionHash,
      token: x.token,
      from_address: x.from,
      to_address: x.to,
      value: x.value.toString(),
    })),
    validator_snapshots: data.validatorSnapshots.map((v) => ({
      epoch: v.epoch.toString(),
      address: v.address,
      block_number: n,
      stake: v.stake,
      self_stake: v.selfStake,
      delegated_stake: v.delegatedStake,
      commission: v.commission,
      uptime: v.uptime,
      status: v.status,
      blocks_proposed: text(v.blocksProposed),
      blocks_missed: text(v.blocksMissed),
      jailed: v.jailed,
    })),
    oracle_prices: data.oraclePrices.map((o) => ({
      asset: storableText(o.asset, MAX_TOKEN_TEXT),
      observed_at: o.observedAt.toString(),
      price: o.price,
      round_id: o.roundId.toString(),
      block_number: n,
    })),
  };
}

/** Reads the indexer's progress, or `undefined` before {@link initIndexerState}. */
export async function readIndexerState(q: Queryable): Promise<IndexerState | undefined> {
  const [row] = await q.query<{
    block_number: bigint;
    block_hash: string | null;
    chain_id: bigint;
    updated_at: Date;
  }>("SELECT block_number, block_hash, chain_id, updated_at FROM indexer_state WHERE id = 1");
  return row === undefined
    ? undefined
    : {
        blockNumber: row.block_number,
        blockHash: row.block_hash,
        chainId: row.chain_id,
        updatedAt: row.updated_at,
      };
}

/**
 * Creates the progress row for `chainId` on a fresh database and returns the state; refuses a
 * database that indexes another chain.
 */
export async function initIndexerState(db: Database, chainId: bigint): Promise<IndexerState> {
  await db.query(
    "INSERT INTO indexer_state (id, block_number, block_hash, chain_id) VALUES (1, -1, NULL, $1) ON CONFLICT (id) DO NOTHING",
    [chainId],
  );
  const state = (await readIndexerState(db))!;
  if (state.chainId !== chainId) throw new ChainIdMismatchError(state.chainId, chainId);
  return state;
}

/** The stored hash of block `number`, if indexed. */
export async function storedBlockHash(q: Queryable, number: bigint): Promise<string | undefined> {
  const [row] = await q.query<{ hash: string }>("SELECT hash FROM blocks WHERE number = $1", [number]);
  return row?.hash;
}

/**
 * Stores one block and advances the progress row: one statement, so one atomic transaction and one
 * round trip. The progress row must point at the parent (`number - 1`), so a block is never written
 * twice nor out of order. The commit does not wait for the WAL flush (`synchronous_commit` off for
 * this transaction only): a database server crash may forget the last few blocks, but always whole
 * blocks together with the progress row, so the indexer indexes them again. The index is derived
 * data; this saves a disk flush per block.
 */
export async function writeBlock(db: Queryable, data: IndexedBlock): Promise<void> {
  const { block } = data;
  const document = blockDocument(data);
  const tables = Object.entries(document)
    .filter(([table, rows]) => table !== "blocks" && Array.isArray(rows) && rows.length > 0)
    .map(([table]) => table);
  const [row] = await db.query<{ written: number }>(writeStatement(tables), [
    block.number,
    block.hash,
    JSON.stringify(document),
    data.transactions.length,
  ]);
  if (row?.written !== 1) throw new IndexerStateConflictError(block.number - 1n, block.number);
}

const BLOCK_TABLES = [
  "transactions",
  "receipts",
  "logs",
  "contracts",
  "tokens",
  "token_transfers",
  "validator_snapshots",
  "oracle_prices",
] as const;

/**
 * Forgets every block above `number` (a reorg) and points the progress row at `number`, in one
 * transaction. `hash` is the stored hash of block `number` (`null` when rewinding before genesis).
 */
export async function rewindTo(db: Database, number: bigint, hash: string | null): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = async (sql: string) => {
      const [row] = await tx.query<{ n: bigint }>(
        `WITH d AS (${sql} RETURNING 1) SELECT count(*)::int8 AS n FROM d`,
        [number],
      );
      return row?.n ?? 0n;
    };
    const transactions = await deleted("DELETE FROM transactions WHERE block_number > $1");
    for (const table of BLOCK_TABLES)
      if (table !== "transactions") await tx.query(`DELETE FROM ${table} WHERE block_number > $1`, [number]);
    const addresses = await deleted("DELETE FROM addresses WHERE first_block > $1");
    await tx.query(
      "UPDATE index_totals SET transactions = transactions - $1, addresses = addresses - $2 WHERE id = 1",
      [transactions, addresses],
    );
    await tx.query("DELETE FROM blocks WHERE number > $1", [number]);
    await tx.query(
      "UPDATE indexer_state SET block_number = $1, block_hash = $2, updated_at = now() WHERE id = 1",
      [number, hash],
    );
  });
}

/** Replaces the stored DePIN registry with `nodes` (each a `svc_getDePINNodes` entry) as of `blockNumber`. */
export async function replaceDePINNodes(
  db: Database,
  nodes: readonly { id: string; owner: string; type: string; region: string; status: string }[],
  blockNumber: bigint,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("DELETE FROM depin_nodes");
    if (nodes.length === 0) return;
    await tx.query(
      `INSERT INTO depin_nodes (id, owner, type, region, status, data, updated_block)
       SELECT n->>'id', lower(n->>'owner'), n->>'type', n->>'region', n->>'status', n, $2 FROM jsonb_array_elements($1::jsonb) AS n`,
      [storableJson(nodes), blockNumber],
    );
  });
}

/** Records `svc_getAIPrediction` answers (`{asset, horizon, timestamp, …}`); one row per asset, horizon and timestamp. */
export async function insertPredictions(
  db: Database,
  predictions: readonly { asset: string; horizon: number; timestamp: string }[],
  blockNumber: bigint,
): Promise<void> {
  if (predictions.length === 0) return;
  await db.query(
    `INSERT INTO predictions (asset, horizon, timestamp, block_number, data)
     SELECT p->>'asset', (p->>'horizon')::int4, p->>'timestamp', $2, p FROM jsonb_array_elements($1::jsonb) AS p
     ON CONFLICT (asset, horizon, timestamp) DO NOTHING`,
    [storableJson(predictions), blockNumber],
  );
}
