import { indexerDb } from "@strata/db";
import { requireDb, tryNode } from "../context.js";
import { addressParam, limitQuery, positionCursor } from "../params.js";
import { Address, pageOf, TokenTransfer, TransactionSummary } from "../schemas.js";
import { page, tokenJson, transactionSummaryJson, transferJson } from "../serialize.js";
import { positionOf } from "./blocks.js";
import { defineRoute } from "./route.js";

/** `GET /v1/addresses/{address}`. */
export const addressRoute = defineRoute({
  path: "/v1/addresses/{address}",
  summary: "Address overview",
  params: { address: addressParam },
  response: Address,
  async handle(ctx, { params: { address } }) {
    const db = requireDb(ctx);
    const [balance, nonce, code] = await Promise.all([
      tryNode(ctx, "eth_getBalance", [address, "latest"]),
      tryNode(ctx, "eth_getTransactionCount", [address, "latest"]),
      tryNode(ctx, "eth_getCode", [address, "latest"]),
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
});

/** `GET /v1/addresses/{address}/transactions`. */
export const addressTransactionsRoute = defineRoute({
  path: "/v1/addresses/{address}/transactions",
  summary: "Transactions from or to an address",
  params: { address: addressParam },
  query: { limit: limitQuery, cursor: positionCursor },
  response: pageOf(TransactionSummary),
  async handle(ctx, { params: { address }, query: { limit, cursor } }) {
    const rows = await indexerDb.addressTransactions(requireDb(ctx), address, limit, cursor);
    return page(rows, limit, transactionSummaryJson, (t) => positionOf(t.block_number, t.tx_index));
  },
});

/** `GET /v1/addresses/{address}/token-transfers`. */
export const addressTransfersRoute = defineRoute({
  path: "/v1/addresses/{address}/token-transfers",
  summary: "Token transfers from or to an address",
  params: { address: addressParam },
  query: { limit: limitQuery, cursor: positionCursor },
  response: pageOf(TokenTransfer),
  async handle(ctx, { params: { address }, query: { limit, cursor } }) {
    const rows = await indexerDb.addressTokenTransfers(requireDb(ctx), address, limit, cursor);
    return page(rows, limit, transferJson, (x) => positionOf(x.block_number, x.log_index));
  },
});
