import { indexerDb } from "@strata/db";
import { requireDb, tryNode } from "../context.js";
import { isAddress, isBlockNumber, isHash } from "../params.js";
import { BadRequestError } from "../rest-errors.js";
import { isoOf } from "../serialize.js";
import type { Route } from "./route.js";

const NETWORKS: Record<string, string> = { "1337": "dev", "13370": "mainnet" };

/** `/v1/chain` and `/v1/search`. */
export const chainRoutes: Route[] = [
  {
    pattern: /^\/v1\/chain$/,
    async handle(ctx) {
      const db = requireDb(ctx);
      const [figures, state, nodeHead, staking] = await Promise.all([
        indexerDb.chainFigures(db),
        indexerDb.readIndexerState(db),
        tryNode<string>(ctx, "eth_blockNumber"),
        tryNode<{ validatorCount?: number | string }>(ctx, "svc_getStakingInfo", []),
      ]);
      const chainId = state?.chainId ?? BigInt((await tryNode<string>(ctx, "eth_chainId")) ?? "0");
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
  },
  {
    pattern: /^\/v1\/search$/,
    async handle(ctx, url) {
      const q = (url.searchParams.get("q") ?? "").trim();
      if (q === "")
        throw new BadRequestError("q: expected a block number, a hash, an address or a token symbol");
      const db = requireDb(ctx);
      if (isBlockNumber(q) && !isHash(q)) {
        const block = await indexerDb.findBlock(db, BigInt(q));
        return block ? { type: "block", value: Number(block.number) } : { type: null, value: null };
      }
      if (isHash(q)) {
        const hash = q.toLowerCase();
        if (await indexerDb.findTransaction(db, hash)) return { type: "transaction", value: hash };
        const block = await indexerDb.findBlock(db, hash);
        if (block) return { type: "block", value: Number(block.number) };
        const pending = await tryNode<unknown>(ctx, "eth_getTransactionByHash", [hash]);
        return pending ? { type: "transaction", value: hash } : { type: null, value: null };
      }
      if (isAddress(q)) {
        const address = q.toLowerCase();
        return (await indexerDb.findToken(db, address))
          ? { type: "token", value: address }
          : { type: "address", value: address };
      }
      const [token] = await indexerDb.tokensBySymbol(db, q);
      return token ? { type: "token", value: token.address } : { type: null, value: null };
    },
  },
];
