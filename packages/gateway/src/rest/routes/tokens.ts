import { indexerDb } from "@strata/db";
import { requireDb, tryNode } from "../context.js";
import { addressParam, limitParam, positionCursor, tokenCursor } from "../params.js";
import { NotFoundError } from "../rest-errors.js";
import { page, tokenJson, transferJson } from "../serialize.js";
import { positionOf } from "./blocks.js";
import type { Route } from "./route.js";

const TOTAL_SUPPLY = "0x18160ddd";

/** `/v1/tokens`, `/v1/tokens/{address}`, `/v1/tokens/{address}/transfers`. */
export const tokenRoutes: Route[] = [
  {
    pattern: /^\/v1\/tokens$/,
    async handle(ctx, url) {
      const limit = limitParam(url);
      const rows = await indexerDb.listTokens(requireDb(ctx), limit, tokenCursor(url));
      return page(rows, limit, tokenJson, (k) => `${k.block_number}:${k.address}`);
    },
  },
  {
    pattern: /^\/v1\/tokens\/([^/]+)$/,
    async handle(ctx, _url, [raw]) {
      const address = addressParam(raw!);
      const db = requireDb(ctx);
      const token = await indexerDb.findToken(db, address);
      if (!token) throw new NotFoundError(`no ERC-20 token indexed at ${address}`);
      const supply = await tryNode<string>(ctx, "eth_call", [{ to: address, data: TOTAL_SUPPLY }, "latest"]);
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
  },
  {
    pattern: /^\/v1\/tokens\/([^/]+)\/transfers$/,
    async handle(ctx, url, [raw]) {
      const address = addressParam(raw!);
      const limit = limitParam(url);
      const db = requireDb(ctx);
      if (!(await indexerDb.findToken(db, address)))
        throw new NotFoundError(`no ERC-20 token indexed at ${address}`);
      const rows = await indexerDb.tokenTransfers(db, address, limit, positionCursor(url));
      return page(rows, limit, transferJson, (x) => positionOf(x.block_number, x.log_index));
    },
  },
];
