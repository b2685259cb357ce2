import type { Queryable } from "../database.js";

/*
 * Reads behind the REST API. Lists are newest first and paginate by keyset: `before` is the position
 * (block number, index within the block) of the last row of the previous page; every list query is
 * served by an index on that position.
 */

/** A position in the chain: block number and transaction/log index within it. */
export interface Position {
  readonly block: bigint;
  readonly index: number;
}

/** A stored block header. */
export interface StoredBlock {
  number: bigint;
  hash: string;
  parent_hash: string;
  timestamp: bigint;
  miner: string;
  gas_used: string;
  gas_limit: string;
  base_fee_per_gas: string | null;
  transaction_count: number;
  size: bigint;
}

/** A stored transaction joined with its receipt. */
export interface StoredTransaction {
  hash: string;
  block_number: bigint;
  block_hash: string;
  tx_index: number;
  from_address: string;
  to_address: string | null;
  value: string;
  nonce: bigint;
  gas: string;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  type: number;
  input: string;
  status: number | null;
  gas_used: string | null;
  effective_gas_price: string | null;
  contract_address: string | null;
  revert_reason: string | null;
  timestamp: bigint;
}

/** A stored event log. */
export interface StoredLog {
  block_number: bigint;
  log_index: number;
  transaction_hash: string;
  address: string;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
  data: string;
}

/** A decoded token transfer joined with its token's metadata and block time. */
export interface StoredTokenTransfer {
  block_number: bigint;
  log_index: number;
  transaction_hash: string;
  token: string;
  symbol: string | null;
  decimals: number | null;
  from_address: string;
  to_address: string;
  value: string;
  timestamp: bigint;
}

/** A stored ERC-20 token. */
export interface StoredToken {
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  total_supply: string | null;
  block_number: bigint;
}

/** A stored contract creation. */
export interface StoredContract {
  address: string;
  creator: string;
  creation_transaction: string;
  block_number: bigint;
}

/** One validator's figures at one epoch. */
export interface StoredValidatorSnapshot {
  epoch: bigint;
  block_number: bigint;
  stake: string;
  blocks_proposed: bigint | null;
  blocks_missed: bigint | null;
  uptime: string | null;
}

/** One oracle price observation. */
export interface StoredPrice {
  observed_at: bigint;
  price: string;
}

/** Figures for the chain overview. */
export interface ChainFigures {
  blockNumber: bigint | null;
  latestTimestamp: bigint | null;
  /** Seconds between the oldest and newest of the last 100 blocks after genesis, and how many blocks and txs they hold. */
  windowSeconds: bigint;
  windowBlocks: number;
  windowTransactions: number;
  totalTransactions: bigint;
  totalAddresses: bigint;
}

const TX_COLUMNS = `t.hash, t.block_number, t.block_hash, t.tx_index, t.from_address, t.to_address, t.value, t.nonce, t.gas,
  t.gas_price, t.max_fee_per_gas, t.max_priority_fee_per_gas, t.type, t.input, r.status, r.gas_used, r.effective_gas_price,
  r.contract_address, r.revert_reason, b.timestamp`;
const TX_FROM =
  "transactions t LEFT JOIN receipts r ON r.transaction_hash = t.hash JOIN blocks b ON b.number = t.block_number";
const TRANSFER_COLUMNS = `x.block_number, x.log_index, x.transaction_hash, x.token, k.symbol, k.decimals, x.from_address,
  x.to_address, x.value, b.timestamp`;
const TRANSFER_FROM = "LEFT JOIN tokens k ON k.address = x.token JOIN blocks b ON b.number = x.block_number";
const MAX_POSITION: Position = { block: 2n ** 62n, index: 0 };

/** Overview figures: head, block-time window, totals. */
export async function chainFigures(q: Queryable): Promise<ChainFigures> {
  const [window] = await q.query<{
    head: bigint | null;
    newest: bigint | null;
    oldest: bigint | null;
    blocks: bigint;
    txs: bigint | null;
  }>(
    // Genesis stays out of the window: its timestamp is the network's, often 0, not a block time.
    `SELECT (SELECT max(number) FROM blocks) AS head, (SELECT max(timestamp) FROM blocks) AS newest,
            min(timestamp) AS oldest, count(*)::int8 AS blocks, sum(transaction_count)::int8 AS txs
       FROM (SELECT number, timestamp, transaction_count FROM blocks WHERE number > 0 ORDER BY number DESC LIMIT 100) w`,
  );
  // Kept by the writes (index_totals), never counted here: a count would scan both tables.
  const [totals] = await q.query<{ txs: bigint; addresses: bigint }>(
    "SELECT transactions AS txs, addresses FROM index_totals WHERE id = 1",
  );
  return {
    blockNumber: window?.head ?? null,
    latestTimestamp: window?.newest ?? null,
    windowSeconds: window?.newest != null && window.oldest != null ? window.newest - window.oldest : 0n,
    windowBlocks: Number(window?.blocks ?? 0n),
    windowTransactions: Number(window?.txs ?? 0n),
    totalTransactions: totals?.txs ?? 0n,
    totalAddresses: totals?.addresses ?? 0n,
  };
}

/** Blocks, newest first, below `before` (a block number). */
export function listBlocks(q: Queryable, limit: number, before?: bigint): Promise<StoredBlock[]> {
  return q.query<StoredBlock>("SELECT * FROM blocks WHERE number < $1 ORDER BY number DESC LIMIT $2", [
    before ?? MAX_POSITION.block,
    limit,
  ]);
}

/** The block with this number or hash. */
export async function findBlock(
  q: Queryable,
  numberOrHash: bigint | string,
): Promise<StoredBlock | undefined> {
  const [row] =
    typeof numberOrHash === "bigint"
      ? await q.query<StoredBlock>("SELECT * FROM blocks WHERE number = $1", [numberOrHash])
      : await q.query<StoredBlock>("SELECT * FROM blocks WHERE hash = $1", [numberOrHash]);
  return row;
}

/** The last `count` blocks, oldest first (for charts). */
export async function recentBlocks(q: Queryable, count: number): Promise<StoredBlock[]> {
  const rows = await q.query<StoredBlock>("SELECT * FROM blocks ORDER BY number DESC LIMIT $1", [count]);
  return rows.reverse();
}

/** The transactions of one block, in block order. */
export function blockTransactions(q: Queryable, blockNumber: bigint): Promise<StoredTransaction[]> {
  return q.query<StoredTransaction>(
    `SELECT ${TX_COLUMNS} FROM ${TX_FROM} WHERE t.block_number = $1 ORDER BY t.tx_index`,
    [blockNumber],
  );
}

/** Transactions, newest first, strictly before `before`. */
export function listTransactions(
  q: Queryable,
  limit: number,
  before = MAX_POSITION,
): Promise<StoredTransaction[]> {
  return q.query<StoredTransaction>(
    `SELECT ${TX_COLUMNS} FROM ${TX_FROM} WHERE (t.block_number, t.tx_index) < ($1, $2)
      ORDER BY t.block_number DESC, t.tx_index DESC LIMIT $3`,
    [before.block, before.index, limit],
  );
}

/** The transaction with this hash, with its receipt. */
export async function findTransaction(q: Queryable, hash: string): Promise<StoredTransaction | undefined> {
  const [row] = await q.query<StoredTransaction>(`SELECT ${TX_COLUMNS} FROM ${TX_FROM} WHERE t.hash = $1`, [
    hash,
  ]);
  return row;
}

/** The logs of one transaction, in order. */
export function transactionLogs(q: Queryable, hash: string): Promise<StoredLog[]> {
  return q.query<StoredLog>(
    "SELECT block_number, log_index, transaction_hash, address, topic0, topic1, topic2, topic3, data FROM logs WHERE transaction_hash = $1 ORDER BY block_number, log_index",
    [hash],
  );
}

/** The token transfers of one transaction, in log order. */
export function transactionTokenTransfers(q: Queryable, hash: string): Promise<StoredTokenTransfer[]> {
  return q.query<StoredTokenTransfer>(
    `SELECT ${TRANSFER_COLUMNS} FROM token_transfers x ${TRANSFER_FROM} WHERE x.transaction_hash = $1 ORDER BY x.log_index`,
    [hash],
  );
}

/** Transactions sent by or to `address`, newest first, strictly before `before`. */
export function addressTransactions(
  q: Queryable,
  address: string,
  limit: number,
  before = MAX_POSITION,
): Promise<StoredTransaction[]> {
  return q.query<StoredTransaction>(
    `SELECT ${TX_COLUMNS} FROM ${TX_FROM} WHERE t.hash IN (
        (SELECT hash FROM transactions WHERE from_address = $1 AND (block_number, tx_index) < ($2, $3)
          ORDER BY block_number DESC, tx_index DESC LIMIT $4)
        UNION
        (SELECT hash FROM transactions WHERE to_address = $1 AND (block_number, tx_index) < ($2, $3)
          ORDER BY block_number DESC, tx_index DESC LIMIT $4))
      ORDER BY t.block_number DESC, t.tx_index DESC LIMIT $4`,
    [address, before.block, before.index, limit],
  );
}

/**
 * Most rows a REST figure counts: beyond it the figure is this bound and flagged as a lower bound, so
 * one request never counts millions of rows.
 */
export const MAX_COUNTED = 10_000;

/** A count up to {@link MAX_COUNTED}: `atLeast` when there are more rows than that. */
export interface BoundedCount {
  readonly count: bigint;
  readonly atLeast: boolean;
}

function bounded(n: bigint | undefined): BoundedCount {
  const count = n ?? 0n;
  return count > BigInt(MAX_COUNTED)
    ? { count: BigInt(MAX_COUNTED), atLeast: true }
    : { count, atLeast: false };
}

/** How many transactions `address` sent or received, counted up to {@link MAX_COUNTED}. */
export async function addressTransactionCount(q: Queryable, address: string): Promise<BoundedCount> {
  const [row] = await q.query<{ n: bigint }>(
    `SELECT ((SELECT count(*) FROM (SELECT 1 FROM transactions WHERE from_address = $1 LIMIT $2) s)
           + (SELECT count(*) FROM (SELECT 1 FROM transactions WHERE to_address = $1 AND from_address <> $1 LIMIT $2) r))::int8 AS n`,
    [address, MAX_COUNTED + 1],
  );
  return bounded(row?.n);
}

/** Token transfers from or to `address`, newest first, strictly before `before`. */
export function addressTokenTransfers(
  q: Queryable,
  address: string,
  limit: number,
  before = MAX_POSITION,
): Promise<StoredTokenTransfer[]> {
  return q.query<StoredTokenTransfer>(
    `SELECT ${TRANSFER_COLUMNS} FROM token_transfers x ${TRANSFER_FROM} WHERE (x.block_number, x.log_index) IN (
        (SELECT block_number, log_index FROM token_transfers WHERE from_address = $1 AND (block_number, log_index) < ($2, $3)
          ORDER BY block_number DESC, log_index DESC LIMIT $4)
        UNION
        (SELECT block_number, log_index FROM token_transfers WHERE to_address = $1 AND (block_number, log_index) < ($2, $3)
          ORDER BY block_number DESC, log_index DESC LIMIT $4))
      ORDER BY x.block_number DESC, x.log_index DESC LIMIT $4`,
    [address, before.block, before.index, limit],
  );
}

/** Whether the index has seen `address` at all. */
export async function addressKnown(q: Queryable, address: string): Promise<boolean> {
  return (await q.query("SELECT 1 FROM addresses WHERE address = $1", [address])).length > 0;
}

/** The creation record of contract `address`. */
export async function findContract(q: Queryable, address: string): Promise<StoredContract | undefined> {
  const [row] = await q.query<StoredContract>("SELECT * FROM contracts WHERE address = $1", [address]);
  return row;
}

/** Tokens, newest first; `before` is the `(block, address)` of the previous page's last token. */
export function listTokens(
  q: Queryable,
  limit: number,
  before: { block: bigint; address: string } = { block: MAX_POSITION.block, address: "" },
): Promise<StoredToken[]> {
  return q.query<StoredToken>(
    `SELECT * FROM tokens WHERE block_number < $1 OR (block_number = $1 AND address > $2)
      ORDER BY block_number DESC, address LIMIT $3`,
    [before.block, before.address, limit],
  );
}

/** The token at `address`. */
export async function findToken(q: Queryable, address: string): Promise<StoredToken | undefined> {
  const [row] = await q.query<StoredToken>("SELECT * FROM tokens WHERE address = $1", [address]);
  return row;
}

/** Tokens whose symbol is `symbol` (case-insensitive). */
export function tokensBySymbol(q: Queryable, symbol: string): Promise<StoredToken[]> {
  return q.query<StoredToken>(
    "SELECT * FROM tokens WHERE lower(symbol) = lower($1) ORDER BY block_number LIMIT 10",
    [symbol],
  );
}

/**
 * Transfer count (up to {@link MAX_COUNTED}) and holder count (addresses with a positive balance) of
 * a token. Holders are summed from every transfer, so they are counted only while the token has at
 * most {@link MAX_COUNTED} transfers (`null` beyond).
 */
export async function tokenFigures(
  q: Queryable,
  token: string,
): Promise<{ transfers: BoundedCount; holders: bigint | null }> {
  const [counted] = await q.query<{ n: bigint }>(
    "SELECT count(*)::int8 AS n FROM (SELECT 1 FROM token_transfers WHERE token = $1 LIMIT $2) t",
    [token, MAX_COUNTED + 1],
  );
  const transfers = bounded(counted?.n);
  if (transfers.atLeast) return { transfers, holders: null };
  const [row] = await q.query<{ holders: bigint }>(
    `SELECT count(*)::int8 AS holders FROM (
       SELECT holder FROM (
         SELECT to_address AS holder, value FROM token_transfers WHERE token = $1
         UNION ALL SELECT from_address, -value FROM token_transfers WHERE token = $1) m
       WHERE holder <> '0x0000000000000000000000000000000000000000'
       GROUP BY holder HAVING sum(value) > 0) h`,
    [token],
  );
  return { transfers, holders: row?.holders ?? 0n };
}

/** Transfers of one token, newest first, strictly before `before`. */
export function tokenTransfers(
  q: Queryable,
  token: string,
  limit: number,
  before = MAX_POSITION,
): Promise<StoredTokenTransfer[]> {
  return q.query<StoredTokenTransfer>(
    `SELECT ${TRANSFER_COLUMNS} FROM token_transfers x ${TRANSFER_FROM}
      WHERE x.token = $1 AND (x.block_number, x.log_index) < ($2, $3)
      ORDER BY x.block_number DESC, x.log_index DESC LIMIT $4`,
    [token, before.block, before.index, limit],
  );
}

/** A validator's per-epoch snapshots, newest first, below epoch `before`. */
export function validatorHistory(
  q: Queryable,
  address: string,
  limit: number,
  before: bigint = MAX_POSITION.block,
): Promise<StoredValidatorSnapshot[]> {
  return q.query<StoredValidatorSnapshot>(
    `SELECT epoch, block_number, stake, blocks_proposed, blocks_missed, uptime FROM validator_snapshots
      WHERE address = $1 AND epoch < $2 ORDER BY epoch DESC LIMIT $3`,
    [address, before, limit],
  );
}

/** How many validators the latest snapshot lists. */
export async function latestValidatorCount(q: Queryable): Promise<number | null> {
  const [row] = await q.query<{ n: bigint | null }>(
    "SELECT count(*)::int8 AS n FROM validator_snapshots WHERE epoch = (SELECT max(epoch) FROM validator_snapshots)",
  );
  return row?.n ? Number(row.n) : null;
}

/** Stored DePIN nodes (their `svc_getDePINNodes` objects) matching the filter. */
export async function depinNodes(
  q: Queryable,
  filter: { type?: string; region?: string; status?: string },
  limit: number,
  afterId = "",
): Promise<unknown[]> {
  const rows = await q.query<{ data: unknown }>(
    `SELECT data FROM depin_nodes WHERE ($1::text IS NULL OR type = $1) AND ($2::text IS NULL OR region = $2)
       AND ($3::text IS NULL OR status = $3) AND id > $4 ORDER BY id LIMIT $5`,
    [filter.type ?? null, filter.region ?? null, filter.status ?? null, afterId, limit],
  );
  return rows.map((r) => r.data);
}

/** Assets with indexed oracle prices, with their count and latest observation. */
export function priceFeeds(
  q: Queryable,
): Promise<{ asset: string; observations: bigint; latest_at: bigint; latest_price: string }[]> {
  return q.query(
    `SELECT asset, count(*)::int8 AS observations, max(observed_at) AS latest_at,
            (array_agg(price ORDER BY observed_at DESC))[1] AS latest_price
       FROM oracle_prices GROUP BY asset ORDER BY asset`,
  );
}

/** An asset's daily closes (the last oracle price of each UTC day), oldest first (the latest `limit` days). */
export async function dailyCloses(q: Queryable, asset: string, limit: number): Promise<StoredPrice[]> {
  const rows = await q.query<StoredPrice>(
    `SELECT DISTINCT ON (observed_at / 86400) observed_at, price FROM oracle_prices WHERE asset = $1
      ORDER BY observed_at / 86400 DESC, observed_at DESC LIMIT $2`,
    [asset, limit],
  );
  return rows.reverse();
}

/** The latest stored prediction of `asset` at `horizon` days. */
export async function latestPrediction(q: Queryable, asset: string, horizon: number): Promise<unknown> {
  const [row] = await q.query<{ data: unknown }>(
    "SELECT data FROM predictions WHERE asset = $1 AND horizon = $2 ORDER BY block_number DESC, timestamp DESC LIMIT 1",
    [asset, horizon],
  );
  return row?.data;
}
