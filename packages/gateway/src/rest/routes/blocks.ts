import { indexerDb } from "@strata/db";
import { requireDb } from "../context.js";
import { blockIdParam, intQuery, limitQuery, numberCursor } from "../params.js";
import { NotFoundError } from "../rest-errors.js";
import { Block, BlockDetail, BlockStat, pageOf } from "../schemas.js";
import { blockJson, page, transactionSummaryJson } from "../serialize.js";
import { defineRoute } from "./route.js";

/** `GET /v1/blocks`. */
export const blocksRoute = defineRoute({
  path: "/v1/blocks",
  summary: "Latest blocks",
  query: { limit: limitQuery, cursor: numberCursor },
  response: pageOf(Block),
  async handle(ctx, { query: { limit, cursor } }) {
    const rows = await indexerDb.listBlocks(requireDb(ctx), limit, cursor);
    return page(rows, limit, blockJson, (b) => String(b.number));
  },
});

/** `GET /v1/blocks/{numberOrHash}`. */
export const blockRoute = defineRoute({
  path: "/v1/blocks/{numberOrHash}",
  summary: "One block with its transactions",
  params: { numberOrHash: blockIdParam },
  response: BlockDetail,
  notFound: true,
  async handle(ctx, { params: { numberOrHash } }) {
    const db = requireDb(ctx);
    const block = await indexerDb.findBlock(db, numberOrHash);
    if (!block) throw new NotFoundError(`block ${numberOrHash} not found`);
    const transactions = await indexerDb.blockTransactions(db, block.number);
    return { ...blockJson(block), transactions: transactions.map(transactionSummaryJson) };
  },
});

/** `GET /v1/stats/blocks?count=`. */
export const blockStatsRoute = defineRoute({
  path: "/v1/stats/blocks",
  summary: "Recent blocks for charts, oldest first",
  query: { count: intQuery(1, 500, 100, "how many of the latest blocks") },
  response: BlockStat.array(),
  async handle(ctx, { query: { count } }) {
    const rows = await indexerDb.recentBlocks(requireDb(ctx), count);
    return rows.map((b) => ({
      number: Number(b.number),
      timestamp: Number(b.timestamp),
      transactionCount: b.transaction_count,
      gasUsed: b.gas_used,
      gasLimit: b.gas_limit,
    }));
  },
});

/** The cursor of a transaction or transfer row: its position. */
export const positionOf = (block: bigint, index: number) => `${block}:${index}`;
