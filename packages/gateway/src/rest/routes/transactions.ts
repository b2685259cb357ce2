import { indexerDb } from "@strata/db";
import { requireDb } from "../context.js";
import { hashParam, limitParam, positionCursor } from "../params.js";
import { NotFoundError } from "../rest-errors.js";
import { page, transactionJson, transactionSummaryJson } from "../serialize.js";
import { positionOf } from "./blocks.js";
import type { Route } from "./route.js";

/** `/v1/transactions`, `/v1/transactions/{hash}`. */
export const transactionRoutes: Route[] = [
  {
    pattern: /^\/v1\/transactions$/,
    async handle(ctx, url) {
      const limit = limitParam(url);
      const rows = await indexerDb.listTransactions(requireDb(ctx), limit, positionCursor(url));
      return page(rows, limit, transactionSummaryJson, (t) => positionOf(t.block_number, t.tx_index));
    },
  },
  {
    pattern: /^\/v1\/transactions\/([^/]+)$/,
    async handle(ctx, _url, [raw]) {
      const db = requireDb(ctx);
      const hash = hashParam(raw!);
      const tx = await indexerDb.findTransaction(db, hash);
      if (!tx) throw new NotFoundError(`transaction ${hash} not found`);
      const [logs, transfers] = [
        await indexerDb.transactionLogs(db, hash),
        await indexerDb.transactionTokenTransfers(db, hash),
      ];
      return transactionJson(tx, logs, transfers);
    },
  },
];
