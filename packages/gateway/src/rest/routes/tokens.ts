import { indexerDb } from "@strata/db";
import { requireDb, tryNode } from "../context.js";
import { addressParam, limitQuery, positionCursor, tokenCursor } from "../params.js";
import { NotFoundError } from "../rest-errors.js";
import { pageOf, Token, TokenDetail, TokenTransfer } from "../schemas.js";
import { page, tokenJson, transferJson } from "../serialize.js";
import { positionOf } from "./blocks.js";
import { defineRoute } from "./route.js";

const TOTAL_SUPPLY = "0x18160ddd";

/** `GET /v1/tokens`. */
export const tokensRoute = defineRoute({
  path: "/v1/tokens",
  summary: "ERC-20 tokens, newest first",
  query: { limit: limitQuery, cursor: tokenCursor },
  response: pageOf(Token),
  async handle(ctx, { query: { limit, cursor } }) {
    const rows = await indexerDb.listTokens(requireDb(ctx), limit, cursor);
    return page(rows, limit, tokenJson, (k) => `${k.block_number}:${k.address}`);
  },
});

/** `GET /v1/tokens/{address}`. */
export const tokenRoute = defineRoute({
  path: "/v1/tokens/{address}",
  summary: "One token",
  params: { address: addressParam },
  response: TokenDetail,
  notFound: true,
  async handle(ctx, { params: { address } }) {
    const db = requireDb(ctx);
    const token = await indexerDb.findToken(db, address);
    if (!token) throw new NotFoundError(`no ERC-20 token indexed at ${address}`);
    const supply = await tryNode(ctx, "eth_call", [{ to: address, data: TOTAL_SUPPLY }, "latest"]);
    const figures = await indexerDb.tokenFigures(db, address);
    return {
      ...tokenJson(token),
      totalSupply:
        supply !== undefined && supply.length === 66 ? BigInt(supply).toString() : token.total_supply,
      transferCount: Number(figures.transfers.count),
      transferCountIsLowerBound: figures.transfers.atLeast,
      holderCount: figures.holders === null ? null : Number(figures.holders),
    };
  },
});

/** `GET /v1/tokens/{address}/transfers`. */
export const tokenTransfersRoute = defineRoute({
  path: "/v1/tokens/{address}/transfers",
  summary: "Transfers of a token",
  params: { address: addressParam },
  query: { limit: limitQuery, cursor: positionCursor },
  response: pageOf(TokenTransfer),
  notFound: true,
  async handle(ctx, { params: { address }, query: { limit, cursor } }) {
    const db = requireDb(ctx);
    if (!(await indexerDb.findToken(db, address)))
      throw new NotFoundError(`no ERC-20 token indexed at ${address}`);
    const rows = await indexerDb.tokenTransfers(db, address, limit, cursor);
    return page(rows, limit, transferJson, (x) => positionOf(x.block_number, x.log_index));
  },
});
