import { indexerDb } from "@strata/db";
import { requireDb } from "../context.js";
import { blockCursor, blockIdParam, intParam, limitParam } from "../params.js";
import { NotFoundError } from "../rest-errors.js";
import { blockJson, page, transactionSummaryJson } from "../serialize.js";
import type { Route } from "./route.js";

/** `/v1/blocks`, `/v1/blocks/{numberOrHash}`, `/v1/stats/blocks`. */
export const blockRoutes: Route[] = [
  {
    pattern: /^\/v1\/blocks$/,
    async handle(ctx, url) {
      const limit = limitParam(url);
      const rows = await indexerDb.listBlocks(requireDb(ctx), limit, blockCursor(url));
      return page(rows, limit, blockJson, (b) => String(b.number));
    },
  },
  {
    pattern: /^\/v1\/blocks\/([^/]+)$/,
    async handle(ctx, _url, [id]) {
      const db = requireDb(ctx);
      const block = await indexerDb.findBlock(db, blockIdParam(id!));
      if (!block) throw new NotFoundError(`block ${id} not found`);
      const transactions = await indexerDb.blockTransactions(db, block.number);
      return { ...blockJson(block), transactions: transactions.map(transactionSummaryJson) };
    },
  },
  {
    pattern: /^\/v1\/stats\/blocks$/,
    async handle(ctx, url) {
      const count = intParam(url, "count", 100, 1, 500);
      const rows = await indexerDb.recentBlocks(requireDb(ctx), count);
      return rows.map((b) => ({
        number: Number(b.number),
        timestamp: Number(b.timestamp),
        transactionCount: b.transaction_count,
        gasUsed: b.gas_used,
        gasLimit: b.gas_limit,
      }));
    },
  },
];

/** The cursor of a transaction or transfer row: its position. */
export const positionOf = (block: bigint, index: number) => `${block}:${index}`;
