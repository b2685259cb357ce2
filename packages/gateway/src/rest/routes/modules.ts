import { indexerDb } from "@strata/db";
import { BacktestCache } from "../backtest-cache.js";
import { callNode, requireDb, tryNode } from "../context.js";
import { addressParam, enumParam, intParam, limitParam, pathSegment } from "../params.js";
import { BadRequestError, NotFoundError } from "../rest-errors.js";
import { isoOf, page, percentToFraction, withUptimeFraction } from "../serialize.js";
import type { Route } from "./route.js";

const NODE_TYPES = ["compute", "storage", "wireless", "sensor", "energy"] as const;
const NODE_STATUS = ["active", "inactive"] as const;
const HISTORY_DAYS = 2_000;
/** Backtests of the prediction model, shared by every request (the gateway reports their count). */
export const backtests = new BacktestCache();

/** Validators, staking, DePIN nodes and predictions. */
export const moduleRoutes: Route[] = [
  {
    pattern: /^\/v1\/validators$/,
    async handle(ctx) {
      const validators = await callNode<{ uptime?: unknown }[]>(ctx, "svc_getValidators", []);
      return { items: validators.map(withUptimeFraction), nextCursor: null };
    },
  },
  {
    pattern: /^\/v1\/validators\/([^/]+)\/history$/,
    async handle(ctx, url, [raw]) {
      const address = addressParam(raw!);
      const limit = limitParam(url);
      const cursor = url.searchParams.get("cursor");
      if (cursor !== null && cursor !== "" && !/^\d{1,18}$/.test(cursor))
        throw new BadRequestError(`cursor: not a cursor this API returned: "${cursor}"`);
      const rows = await indexerDb.validatorHistory(
        requireDb(ctx),
        address,
        limit,
        cursor ? BigInt(cursor) : undefined,
      );
      return page(
        rows,
        limit,
        (s) => ({
          epoch: Number(s.epoch),
          blockNumber: Number(s.block_number),
          stake: s.stake,
          blocksProposed: s.blocks_proposed === null ? null : Number(s.blocks_proposed),
          blocksMissed: s.blocks_missed === null ? null : Number(s.blocks_missed),
          uptime: s.uptime === null ? null : percentToFraction(s.uptime),
        }),
        (s) => String(s.epoch),
      );
    },
  },
  {
    pattern: /^\/v1\/staking$/,
    handle: (ctx) => callNode(ctx, "svc_getStakingInfo", []),
  },
  {
    pattern: /^\/v1\/staking\/([^/]+)$/,
    handle: (ctx, _url, [raw]) => callNode(ctx, "svc_getStakingInfo", [addressParam(raw!)]),
  },
  {
    pattern: /^\/v1\/depin\/nodes$/,
    async handle(ctx, url) {
      const type = enumParam(url, "type", NODE_TYPES);
      const status = enumParam(url, "status", NODE_STATUS);
      const region = url.searchParams.get("region") || undefined;
      const limit = limitParam(url);
      const cursor = url.searchParams.get("cursor") ?? "";
      const rows = await indexerDb.depinNodes(
        requireDb(ctx),
        { ...(type ? { type } : {}), ...(region ? { region } : {}), ...(status ? { status } : {}) },
        limit,
        cursor,
      );
      return page(
        rows,
        limit,
        (n) => withUptimeFraction(n as { uptime?: unknown }),
        (n) => (n as { id: string }).id,
      );
    },
  },
  {
    pattern: /^\/v1\/predictions$/,
    async handle(ctx) {
      const feeds = await indexerDb.priceFeeds(requireDb(ctx));
      return {
        items: feeds.map((f) => ({
          asset: f.asset,
          observations: Number(f.observations),
          latestPrice: f.latest_price,
          timestamp: Number(f.latest_at),
          datetime: isoOf(f.latest_at),
        })),
        nextCursor: null,
      };
    },
  },
  {
    pattern: /^\/v1\/predictions\/([^/]+)$/,
    async handle(ctx, url, [raw]) {
      const asset = pathSegment(raw!, "asset").toUpperCase();
      if (!/^[A-Z0-9]{1,16}$/.test(asset))
        throw new BadRequestError(`asset: expected a symbol such as STRA, got "${raw}"`);
      const horizon = intParam(url, "horizon", 1, 1, 365);
      const db = requireDb(ctx);
      const prediction =
        (await tryNode<unknown>(ctx, "svc_getAIPrediction", [asset, horizon])) ??
        (await indexerDb.latestPrediction(db, asset, horizon));
      const closes = await indexerDb.dailyCloses(db, asset, HISTORY_DAYS);
      if (prediction === undefined && closes.length === 0) {
        throw new NotFoundError(`no price feed or prediction for ${asset}`);
      }
      const points = closes.map((p) => ({ time: Number(p.observed_at), price: Number(p.price) }));
      return {
        prediction: prediction ?? null,
        history: closes.map((p) => ({
          timestamp: Number(p.observed_at),
          datetime: isoOf(p.observed_at),
          price: p.price,
        })),
        backtest: await backtests.get(asset, horizon, points),
      };
    },
  },
];
