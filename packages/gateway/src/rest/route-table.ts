import type { z } from "zod";
import { addressRoute, addressTransactionsRoute, addressTransfersRoute } from "./routes/addresses.js";
import { blockRoute, blockStatsRoute, blocksRoute } from "./routes/blocks.js";
import { chainRoute, searchRoute } from "./routes/chain.js";
import {
  accountStakingRoute,
  depinNodesRoute,
  feedsRoute,
  predictionRoute,
  stakingRoute,
  validatorHistoryRoute,
  validatorsRoute,
} from "./routes/modules.js";
import { tokenRoute, tokensRoute, tokenTransfersRoute } from "./routes/tokens.js";
import { transactionRoute, transactionsRoute } from "./routes/transactions.js";

/*
 * The REST API, one route a row: path, path/query schemas, response schema and handler. The gateway
 * serves it (index.ts), the OpenAPI document is generated from it (openapi.ts), and the explorer
 * imports its response types from here (`@strata/gateway/rest`, types only).
 */

/** Every route of REST /v1, in the order the OpenAPI document lists them. */
export const REST_ROUTES = [
  chainRoute,
  blocksRoute,
  blockRoute,
  transactionsRoute,
  transactionRoute,
  addressRoute,
  addressTransactionsRoute,
  addressTransfersRoute,
  tokensRoute,
  tokenRoute,
  tokenTransfersRoute,
  validatorsRoute,
  validatorHistoryRoute,
  stakingRoute,
  accountStakingRoute,
  depinNodesRoute,
  feedsRoute,
  predictionRoute,
  searchRoute,
  blockStatsRoute,
] as const;

/** A route of {@link REST_ROUTES}. */
export type AnyRestRoute = (typeof REST_ROUTES)[number];

/** The path template of a route, e.g. `/v1/blocks/{numberOrHash}`. */
export type RestPath = AnyRestRoute["path"];

/** The JSON a route answers 200 with. */
export type RestResponse<P extends RestPath> = z.output<Extract<AnyRestRoute, { path: P }>["response"]>;

export type {
  AccountStaking,
  Address,
  AprWindow,
  Block,
  BlockDetail,
  BlockStat,
  Chain,
  DePINNode,
  ErrorAnswer,
  Feed,
  Log,
  Page,
  Prediction,
  PredictionView,
  SearchResult,
  Staking,
  Token,
  TokenDetail,
  TokenTransfer,
  Transaction,
  TransactionSummary,
  Validator,
  ValidatorEpoch,
} from "./schemas.js";
