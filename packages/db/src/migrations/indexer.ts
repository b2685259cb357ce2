import type { Migration } from "../migrate.js";

/*
 * The indexer's schema. Hashes and addresses are lowercase `0x` hex text, amounts `numeric` (exact
 * decimal wei), block numbers `int8`. Every chain-derived row carries the block number it came from so
 * a reorg rewind is one `DELETE … WHERE block_number > $1` per table. No foreign keys: the indexer
 * writes a block's rows together in one transaction, and checks would only slow the backfill down.
 */

const CHAIN = `
CREATE TABLE indexer_state (
  id int2 PRIMARY KEY CHECK (id = 1),
  block_number int8 NOT NULL,
  block_hash text,
  chain_id int8 NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE blocks (
  number int8 PRIMARY KEY,
  hash text NOT NULL UNIQUE,
  parent_hash text NOT NULL,
  timestamp int8 NOT NULL,
  miner text NOT NULL,
  gas_used numeric NOT NULL,
  gas_limit numeric NOT NULL,
  base_fee_per_gas numeric,
  transaction_count int4 NOT NULL,
  size int8 NOT NULL
);
CREATE TABLE transactions (
  hash text PRIMARY KEY,
  block_number int8 NOT NULL,
  block_hash text NOT NULL,
  tx_index int4 NOT NULL,
  from_address text NOT NULL,
  to_address text,
  value numeric NOT NULL,
  nonce int8 NOT NULL,
  gas numeric NOT NULL,
  gas_price numeric,
  max_fee_per_gas numeric,
  max_priority_fee_per_gas numeric,
  type int2 NOT NULL,
  input text NOT NULL
);
CREATE UNIQUE INDEX transactions_position ON transactions (block_number, tx_index);
CREATE INDEX transactions_from ON transactions (from_address, block_number, tx_index);
CREATE INDEX transactions_to ON transactions (to_address, block_number, tx_index);
CREATE TABLE receipts (
  transaction_hash text PRIMARY KEY,
  block_number int8 NOT NULL,
  status int2 NOT NULL,
  gas_used numeric NOT NULL,
  cumulative_gas_used numeric NOT NULL,
  effective_gas_price numeric,
  contract_address text,
  revert_reason text
);
CREATE INDEX receipts_block ON receipts (block_number);
CREATE TABLE logs (
  block_number int8 NOT NULL,
  log_index int4 NOT NULL,
  transaction_hash text NOT NULL,
  transaction_index int4 NOT NULL,
  address text NOT NULL,
  topic0 text,
  topic1 text,
  topic2 text,
  topic3 text,
  data text NOT NULL,
  PRIMARY KEY (block_number, log_index)
);
CREATE INDEX logs_transaction ON logs (transaction_hash);
CREATE INDEX logs_address ON logs (address, block_number);
CREATE TABLE addresses (
  address text PRIMARY KEY,
  first_block int8 NOT NULL
);
CREATE INDEX addresses_first_block ON addresses (first_block);
CREATE TABLE contracts (
  address text PRIMARY KEY,
  creator text NOT NULL,
  creation_transaction text NOT NULL,
  block_number int8 NOT NULL
);
CREATE INDEX contracts_block ON contracts (block_number);
`;

const TOKENS = `
CREATE TABLE tokens (
  address text PRIMARY KEY,
  name text,
  symbol text,
  decimals int4,
  total_supply numeric,
  block_number int8 NOT NULL
);
CREATE INDEX tokens_block ON tokens (block_number);
CREATE TABLE token_transfers (
  block_number int8 NOT NULL,
  log_index int4 NOT NULL,
  transaction_hash text NOT NULL,
  token text NOT NULL,
  from_address text NOT NULL,
  to_address text NOT NULL,
  value numeric NOT NULL,
  PRIMARY KEY (block_number, log_index)
);
CREATE INDEX token_transfers_token ON token_transfers (token, block_number, log_index);
CREATE INDEX token_transfers_from ON token_transfers (from_address, block_number, log_index);
CREATE INDEX token_transfers_to ON token_transfers (to_address, block_number, log_index);
CREATE INDEX token_transfers_transaction ON token_transfers (transaction_hash);
`;

const MODULES = `
CREATE TABLE validator_snapshots (
  epoch int8 NOT NULL,
  address text NOT NULL,
  block_number int8 NOT NULL,
  stake numeric NOT NULL,
  self_stake numeric,
  delegated_stake numeric,
  commission text,
  uptime text,
  status text,
  blocks_proposed int8,
  blocks_missed int8,
  jailed boolean,
  PRIMARY KEY (address, epoch)
);
CREATE INDEX validator_snapshots_block ON validator_snapshots (block_number);
CREATE TABLE depin_nodes (
  id text PRIMARY KEY,
  owner text NOT NULL,
  type text NOT NULL,
  region text NOT NULL,
  status text NOT NULL,
  data jsonb NOT NULL,
  updated_block int8 NOT NULL
);
CREATE INDEX depin_nodes_filter ON depin_nodes (type, region, status);
CREATE TABLE oracle_prices (
  asset text NOT NULL,
  observed_at int8 NOT NULL,
  price text NOT NULL,
  round_id numeric NOT NULL,
  block_number int8 NOT NULL,
  PRIMARY KEY (asset, observed_at)
);
CREATE INDEX oracle_prices_block ON oracle_prices (block_number);
CREATE TABLE predictions (
  asset text NOT NULL,
  horizon int4 NOT NULL,
  timestamp text NOT NULL,
  block_number int8 NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (asset, horizon, timestamp)
);
`;

/*
 * Totals the REST API shows on every overview (`GET /v1/chain`): kept by the block writes and the
 * rewind instead of counted per request, which would scan whole tables.
 */
const TOTALS = `
CREATE TABLE index_totals (
  id int2 PRIMARY KEY CHECK (id = 1),
  transactions int8 NOT NULL,
  addresses int8 NOT NULL
);
INSERT INTO index_totals SELECT 1, (SELECT count(*) FROM transactions), (SELECT count(*) FROM addresses);
`;

/** The indexer's migrations, applied in order by {@link migrate}. */
export const INDEXER_MIGRATIONS: readonly Migration[] = [
  { name: "indexer/001_chain", sql: CHAIN },
  { name: "indexer/002_tokens", sql: TOKENS },
  { name: "indexer/003_chain_modules", sql: MODULES },
  { name: "indexer/004_totals", sql: TOTALS },
];
