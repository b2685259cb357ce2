import { indexerDb } from "@strata/db";
import { requireDb, tryNode } from "../context.js";
import { isAddress, isBlockNumber, isHash, searchTermQuery } from "../params.js";
import { Chain, SearchResult } from "../schemas.js";
import { isoOf } from "../serialize.js";
import { defineRoute } from "./route.js";

const NETWORKS: Record<string, string> = { "1337": "dev", "13370": "mainnet" };

/** `GET /v1/chain`. */
export const chainRoute = defineRoute({
  path: "/v1/chain",
  summary: "Chain overview",
  response: Chain,
  async handle(ctx) {
    const db = requireDb(ctx);
    const [figures, state, nodeHead, staking] = await Promise.all([
      indexerDb.chainFigures(db),
      indexerDb.readIndexerState(db),
      tryNode(ctx, "eth_blockNumber", []),
      tryNode(ctx, "svc_getStakingInfo", []),
    ]);
    const chainId = state?.chainId ?? BigInt((await tryNode(ctx, "eth_chainId", [])) ?? "0");
    const indexed = state?.blockNumber ?? -1n;
    const validatorCount =
      staking?.validatorCount !== undefined
        ? Number(staking.validatorCount)
        : ((await indexerDb.latestValidatorCount(db)) ?? 0);
    const intervals = figures.windowBlocks - 1;
    return {
      chainId: Number(chainId),
      network: NETWORKS[chainId.toString()] ?? `chain-${chainId}`,
      blockNumber: figures.blockNumber === null ? null : Number(figures.blockNumber),
      latestBlockTimestamp: figures.latestTimestamp === null ? null : isoOf(figures.latestTimestamp),
      timestamp: figures.latestTimestamp === null ? null : Number(figures.latestTimestamp),
      avgBlockTimeSeconds: intervals > 0 ? Number(figures.windowSeconds) / intervals : null,
      tps: figures.windowSeconds > 0n ? figures.windowTransactions / Number(figures.windowSeconds) : 0,
      totalTransactions: Number(figures.totalTransactions),
      totalAddresses: Number(figures.totalAddresses),
      validatorCount,
      indexerLag: nodeHead === undefined ? null : Math.max(0, Number(BigInt(nodeHead) - indexed)),
    };
  },
});

const found = (type: SearchResult["type"], value: SearchResult["value"]): SearchResult => ({ type, value });
const NOTHING = found(null, null);

/** `GET /v1/search?q=`. */
export const searchRoute = defineRoute({
  path: "/v1/search",
  summary: "Classify a search term",
  query: { q: searchTermQuery },
  response: SearchResult,
  async handle(ctx, { query: { q } }) {
    const db = requireDb(ctx);
    if (isBlockNumber(q) && !isHash(q)) {
      const block = await indexerDb.findBlock(db, BigInt(q));
      return block ? found("block", Number(block.number)) : NOTHING;
    }
    if (isHash(q)) {
      const hash = q.toLowerCase();
      if (await indexerDb.findTransaction(db, hash)) return found("transaction", hash);
      const block = await indexerDb.findBlock(db, hash);
      if (block) return found("block", Number(block.number));
      const pending = await tryNode(ctx, "eth_getTransactionByHash", [hash]);
      return pending ? found("transaction", hash) : NOTHING;
    }
    if (isAddress(q)) {
      const address = q.toLowerCase();
      return (await indexerDb.findToken(db, address)) ? found("token", address) : found("address", address);
    }
    const [token] = await indexerDb.tokensBySymbol(db, q);
    return token ? found("token", token.address) : NOTHING;
  },
});
