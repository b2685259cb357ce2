import { indexerDb } from "@strata/db";
import { requireDb, tryNode } from "../context.js";
import { addressParam, limitParam, positionCursor } from "../params.js";
import { page, tokenJson, transactionSummaryJson, transferJson } from "../serialize.js";
import { positionOf } from "./blocks.js";
import type { Route } from "./route.js";

/** `/v1/addresses/{address}` and its transactions and token transfers. */
export const addressRoutes: Route[] = [
  {
    pattern: /^\/v1\/addresses\/([^/]+)$/,
    async handle(ctx, _url, [raw]) {
      const address = addressParam(raw!);
      const db = requireDb(ctx);
      const [balance, nonce, code] = await Promise.all([
        tryNode<string>(ctx, "eth_getBalance", [address, "latest"]),
        tryNode<string>(ctx, "eth_getTransactionCount", [address, "latest"]),
        tryNode<string>(ctx, "eth_getCode", [address, "latest"]),
      ]);
      const contract = await indexerDb.findContract(db, address);
      const transactions = await indexerDb.addressTransactionCount(db, address);
      const token = await indexerDb.findToken(db, address);
      const isContract = code !== undefined ? code !== "0x" : contract !== undefined;
      return {
        address,
        balance: balance === undefined ? null : BigInt(balance).toString(),
        nonce: nonce === undefined ? null : Number(BigInt(nonce)),
        isContract,
        ...(isContract ? { code: code ?? null } : {}),
        creator: contract?.creator ?? null,
        creationTransaction: contract?.creation_transaction ?? null,
        transactionCount: Number(transactions.count),
        transactionCountIsLowerBound: transactions.atLeast,
        token: token ? tokenJson(token) : null,
      };
    },
  },
  {
    pattern: /^\/v1\/addresses\/([^/]+)\/transactions$/,
    async handle(ctx, url, [raw]) {
      const address = addressParam(raw!);
      const limit = limitParam(url);
      const rows = await indexerDb.addressTransactions(requireDb(ctx), address, limit, positionCursor(url));
      return page(rows, limit, transactionSummaryJson, (t) => positionOf(t.block_number, t.tx_index));
    },
  },
  {
    pattern: /^\/v1\/addresses\/([^/]+)\/token-transfers$/,
    async handle(ctx, url, [raw]) {
      const address = addressParam(raw!);
      const limit = limitParam(url);
      const rows = await indexerDb.addressTokenTransfers(requireDb(ctx), address, limit, positionCursor(url));
      return page(rows, limit, transferJson, (x) => positionOf(x.block_number, x.log_index));
    },
  },
];
