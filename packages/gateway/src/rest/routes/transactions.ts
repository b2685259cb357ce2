import { indexerDb } from "@strata/db";
import { requireDb } from "../context.js";
import { hashParam, limitQuery, positionCursor } from "../params.js";
import { NotFoundError } from "../rest-errors.js";
import { pageOf, Transaction, TransactionSummary } from "../schemas.js";
import { page, transactionJson, transactionSummaryJson } from "../serialize.js";
import { positionOf } from "./blocks.js";
import { defineRoute } from "./route.js";

/** `GET /v1/transactions`. */
export const transactionsRoute = defineRoute({
  path: "/v1/transactions",
  summary: "Latest transactions",
  query: { limit: limitQuery, cursor: positionCursor },
  response: pageOf(TransactionSummary),
  async handle(ctx, { query: { limit, cursor } }) {
    const rows = await indexerDb.listTransactions(requireDb(ctx), limit, cursor);
    return page(rows, limit, transactionSummaryJson, (t) => positionOf(t.block_number, t.tx_index));
  },
});

/** `GET /v1/transactions/{hash}`. */
export const transactionRoute = defineRoute({
  path: "/v1/transactions/{hash}",
  summary: "One transaction with receipt, decoded logs and token transfers",
  params: { hash: hashParam },
  response: Transaction,
  notFound: true,
  async handle(ctx, { params: { hash } }) {
    const db = requireDb(ctx);
    const tx = await indexerDb.findTransaction(db, hash);
    if (!tx) throw new NotFoundError(`transaction ${hash} not found`);
    const logs = await indexerDb.transactionLogs(db, hash);
    const transfers = await indexerDb.transactionTokenTransfers(db, hash);
    return transactionJson(tx, logs, transfers);
  },
});
