import { indexerDb } from "@strata/db";
import { MAX_PREDICTION_HORIZON } from "@strata/protocol";
import type { z } from "zod";
import { BacktestCache } from "../backtest-cache.js";
import { callNode, requireDb, tryNode } from "../context.js";
import {
  addressParam,
  assetParam,
  enumQuery,
  idCursor,
  intQuery,
  limitQuery,
  numberCursor,
  textQuery,
} from "../params.js";
import { NotFoundError, UnavailableError } from "../rest-errors.js";
import {
  AccountStaking,
  DePINNode,
  Feed,
  type Prediction,
  PredictionView,
  pageOf,
  Staking,
  Validator,
  ValidatorEpoch,
} from "../schemas.js";
import { isoOf, page, percentToFraction, withUptimeFraction } from "../serialize.js";
import { defineRoute } from "./route.js";

const HISTORY_DAYS = 2_000;
/** Backtests of the prediction model, shared by every request (the gateway reports their count). */
export const backtests = new BacktestCache();

/** `GET /v1/validators`. */
export const validatorsRoute = defineRoute({
  path: "/v1/validators",
  summary: "Validator set (svc_getValidators)",
  response: pageOf(Validator),
  async handle(ctx) {
    const validators = await callNode(ctx, "svc_getValidators", []);
    return { items: validators.map(withUptimeFraction), nextCursor: null };
  },
});

/** `GET /v1/validators/{address}/history`. */
export const validatorHistoryRoute = defineRoute({
  path: "/v1/validators/{address}/history",
  summary: "A validator's per-epoch snapshots, newest first",
  params: { address: addressParam },
  query: { limit: limitQuery, cursor: numberCursor },
  response: pageOf(ValidatorEpoch),
  async handle(ctx, { params: { address }, query: { limit, cursor } }) {
    const rows = await indexerDb.validatorHistory(requireDb(ctx), address, limit, cursor);
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
});

/** `GET /v1/staking`. */
export const stakingRoute = defineRoute({
  path: "/v1/staking",
  summary: "Network staking figures (svc_getStakingInfo)",
  response: Staking,
  handle: (ctx) => callNode(ctx, "svc_getStakingInfo", []),
});

/** `GET /v1/staking/{address}`. */
export const accountStakingRoute = defineRoute({
  path: "/v1/staking/{address}",
  summary: "An account's staking (svc_getStakingInfo)",
  params: { address: addressParam },
  response: AccountStaking,
  notFound: true,
  async handle(ctx, { params: { address } }) {
    const info = await callNode(ctx, "svc_getStakingInfo", [address]);
    if (!("isValidator" in info))
      throw new UnavailableError("svc_getStakingInfo answered without the account");
    return info;
  },
});

/** `GET /v1/depin/nodes?type=&region=&status=`. */
export const depinNodesRoute = defineRoute({
  path: "/v1/depin/nodes",
  summary: "DePIN nodes",
  query: {
    type: enumQuery(DePINNode.shape.type, "node type"),
    status: enumQuery(DePINNode.shape.status, "default: all"),
    region: textQuery("region"),
    limit: limitQuery,
    cursor: idCursor,
  },
  response: pageOf(DePINNode),
  async handle(ctx, { query: { type, status, region, limit, cursor } }) {
    // The index stores each node as svc_getDePINNodes gives it.
    const rows = (await indexerDb.depinNodes(
      requireDb(ctx),
      { ...(type ? { type } : {}), ...(region ? { region } : {}), ...(status ? { status } : {}) },
      limit,
      cursor,
    )) as z.input<typeof DePINNode>[];
    return page(rows, limit, withUptimeFraction, (n) => n.id);
  },
});

/** `GET /v1/predictions`. */
export const feedsRoute = defineRoute({
  path: "/v1/predictions",
  summary: "Assets with price feeds",
  response: pageOf(Feed),
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
});

/** `GET /v1/predictions/{asset}?horizon=`. */
export const predictionRoute = defineRoute({
  path: "/v1/predictions/{asset}",
  summary: "Price prediction and price history of an asset",
  params: { asset: assetParam },
  query: { horizon: intQuery(1, MAX_PREDICTION_HORIZON, 1, "days") },
  response: PredictionView,
  notFound: true,
  async handle(ctx, { params: { asset }, query: { horizon } }) {
    const db = requireDb(ctx);
    // The node's prediction, else the latest the index recorded (stored as the node gave it).
    const prediction =
      (await tryNode(ctx, "svc_getAIPrediction", [asset, horizon])) ??
      ((await indexerDb.latestPrediction(db, asset, horizon)) as Prediction | undefined);
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
});
