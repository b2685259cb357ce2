import * as wire from "@strata/protocol";
import { z } from "zod";

/*
 * The response shapes of REST /v1 as zod schemas: the route table names one per route, the OpenAPI
 * document is generated from them (each `id` is a component of `#/components/schemas`), the handlers
 * are type-checked against them and the explorer reads its types from them.
 *
 * JSON, camelCase; wei amounts and other big numbers as decimal strings; block numbers, indexes and
 * counts as numbers; times as `timestamp` (unix seconds) plus `datetime` (ISO 8601 UTC); every ratio
 * a decimal fraction, never a percentage. What REST passes through from the node's chain modules
 * (validators, staking, DePIN nodes, predictions) extends protocol's wire objects: REST only
 * describes their fields and gives percentages as fractions.
 */

const int = z.number().int();
const text = z.string();
const bool = z.boolean();
/** Lowercase `0x` hex (hashes, addresses, data, hex block numbers). */
const hex = z.string().regex(/^0x[0-9a-f]*$/);
/** A decimal integer string. */
const wei = z.string().regex(/^\d+$/).meta({ description: "decimal integer (wei or token units)" });
const dateTime = z.iso.datetime();
/** `timestamp` (unix seconds) and `datetime` (ISO 8601 UTC) of one instant. */
const time = { timestamp: int.meta({ description: "unix seconds" }), datetime: dateTime };

/** {@link wei} for the named decimal-amount fields of a wire object: their description and format. */
const amounts = <K extends string>(...names: K[]) =>
  Object.fromEntries(names.map((name) => [name, wei])) as Record<K, typeof wei>;

/** A ratio as a decimal-fraction string: "0.05" is 5 %. */
const fraction = (what: string) =>
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .meta({ description: `${what}: decimal fraction (0.05 = 5 %)` });
/** A ratio as a JSON number: 0.05 is 5 %. */
const fractionNumber = (what: string) =>
  z.number().meta({ description: `${what}: decimal fraction (0.05 = 5 %)` });

/** A named component, or null (a union: a nullable `$ref` would turn the component itself nullable). */
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/** A page of a list: `{items, nextCursor}`. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    nextCursor: text.nullable().meta({ description: "pass as ?cursor= for the next page" }),
  });

/** A page of a list endpoint, as {@link pageOf} describes it. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Every REST error answer. */
export const ErrorAnswer = z
  .object({
    error: z.object({ code: z.enum(["bad_request", "not_found", "unavailable"]), message: text }),
  })
  .meta({ id: "Error" });
/** What {@link ErrorAnswer} describes. */
export type ErrorAnswer = z.output<typeof ErrorAnswer>;

/** `GET /v1/chain`. */
export const Chain = z
  .object({
    chainId: int,
    network: text,
    blockNumber: int.nullable(),
    latestBlockTimestamp: dateTime.nullable(),
    timestamp: int.nullable(),
    avgBlockTimeSeconds: z.number().nullable(),
    tps: z.number().meta({ description: "transactions per second over the last 100 blocks" }),
    totalTransactions: int,
    totalAddresses: int,
    validatorCount: int,
    indexerLag: int.nullable().meta({ description: "blocks the index is behind the node" }),
  })
  .meta({ id: "Chain" });
/** What {@link Chain} describes. */
export type Chain = z.output<typeof Chain>;

/** A block header. */
export const Block = z
  .object({
    number: int,
    hash: hex,
    parentHash: hex,
    ...time,
    miner: hex,
    gasUsed: wei,
    gasLimit: wei,
    baseFeePerGas: wei.nullable(),
    transactionCount: int,
    size: int,
  })
  .meta({ id: "Block" });
/** What {@link Block} describes. */
export type Block = z.output<typeof Block>;

/** A transaction summary (list rows and a block's transactions). */
export const TransactionSummary = z
  .object({
    hash: hex,
    blockNumber: int,
    blockHash: hex,
    index: int,
    ...time,
    from: hex,
    to: hex.nullable(),
    value: wei,
    nonce: int,
    gas: wei,
    gasPrice: wei.nullable(),
    maxFeePerGas: wei.nullable(),
    maxPriorityFeePerGas: wei.nullable(),
    type: int,
    status: z.enum(["success", "reverted", "pending"]),
    gasUsed: wei.nullable(),
    effectiveGasPrice: wei.nullable(),
    contractAddress: hex.nullable(),
    methodId: hex.nullable(),
  })
  .meta({ id: "TransactionSummary" });
/** What {@link TransactionSummary} describes. */
export type TransactionSummary = z.output<typeof TransactionSummary>;

/** A block with its transactions. */
export const BlockDetail = Block.extend({ transactions: z.array(TransactionSummary) }).meta({
  id: "BlockDetail",
});
/** What {@link BlockDetail} describes. */
export type BlockDetail = z.output<typeof BlockDetail>;

/** An event log, with `decoded` when one of the ABIs the product ships matches it. */
export const Log = z
  .object({
    index: int,
    address: hex,
    topics: z.array(hex),
    data: hex,
    decoded: z.object({ event: text, args: z.record(z.string(), z.unknown()) }).optional(),
  })
  .meta({ id: "Log" });
/** What {@link Log} describes. */
export type Log = z.output<typeof Log>;

/** An ERC-20 transfer. */
export const TokenTransfer = z
  .object({
    token: hex,
    symbol: text.nullable(),
    decimals: int.nullable(),
    from: hex,
    to: hex,
    value: wei,
    logIndex: int,
    transactionHash: hex,
    blockNumber: int,
    ...time,
  })
  .meta({ id: "TokenTransfer" });
/** What {@link TokenTransfer} describes. */
export type TokenTransfer = z.output<typeof TokenTransfer>;

/** A transaction with its receipt, decoded logs and token transfers. */
export const Transaction = TransactionSummary.omit({ methodId: true })
  .extend({
    input: hex,
    revertReason: text.nullable(),
    logs: z.array(Log),
    tokenTransfers: z.array(TokenTransfer),
  })
  .meta({ id: "Transaction" });
/** What {@link Transaction} describes. */
export type Transaction = z.output<typeof Transaction>;

/** An ERC-20 token's stored metadata. */
export const Token = z
  .object({
    address: hex,
    name: text.nullable(),
    symbol: text.nullable(),
    decimals: int.nullable(),
    totalSupply: wei.nullable(),
    firstSeenBlock: int,
  })
  .meta({ id: "Token" });
/** What {@link Token} describes. */
export type Token = z.output<typeof Token>;

/** One token with its transfer and holder counts. */
export const TokenDetail = Token.extend({
  transferCount: int.meta({ description: "counted up to 10,000" }),
  transferCountIsLowerBound: bool.meta({ description: "true when there are more than 10,000" }),
  holderCount: int.nullable().meta({ description: "null when the token has more than 10,000 transfers" }),
}).meta({ id: "TokenDetail" });
/** What {@link TokenDetail} describes. */
export type TokenDetail = z.output<typeof TokenDetail>;

/** `GET /v1/addresses/{address}`. */
export const Address = z
  .object({
    address: hex,
    balance: wei.nullable().meta({ description: "live from the node" }),
    nonce: int.nullable(),
    isContract: bool,
    code: hex.nullable().optional().meta({ description: "contracts only; live from the node" }),
    creator: hex.nullable(),
    creationTransaction: hex.nullable(),
    transactionCount: int.meta({ description: "counted up to 10,000" }),
    transactionCountIsLowerBound: bool.meta({ description: "true when there are more than 10,000" }),
    token: orNull(Token),
  })
  .meta({ id: "Address" });
/** What {@link Address} describes. */
export type Address = z.output<typeof Address>;

/** A validator: `svc_getValidators`' object, with `uptime` as a fraction. */
export const Validator = wire.Validator.extend({
  ...amounts("stake", "selfStake", "delegatedStake"),
  commission: fraction("share of rewards the validator keeps"),
  uptime: fraction(
    "slots proposed of those assigned in the last uptime window (svc_getValidators gives the same as a percentage)",
  ),
}).meta({ id: "Validator" });
/** What {@link Validator} describes. */
export type Validator = z.output<typeof Validator>;

/** One validator's figures at one epoch. */
export const ValidatorEpoch = z
  .object({
    epoch: int,
    blockNumber: int,
    stake: wei,
    blocksProposed: int.nullable(),
    blocksMissed: int.nullable(),
    uptime: fraction("uptime at the snapshot").nullable(),
  })
  .meta({ id: "ValidatorEpoch" });
/** What {@link ValidatorEpoch} describes. */
export type ValidatorEpoch = z.output<typeof ValidatorEpoch>;

const window = wire.AprWindow.shape;
/** The completed epochs an APR was measured over (`svc_getStakingInfo`'s `aprWindow`). */
export const AprWindow = wire.AprWindow.extend({
  epochs: window.epochs.meta({ description: "completed epochs measured" }),
  fullEpochs: window.fullEpochs.meta({ description: "epochs in a full window (10)" }),
  seconds: window.seconds.meta({ description: "chain time the span took" }),
  complete: window.complete.meta({
    description: "a full window; before that apr is provisional and the explorer shows '-'",
  }),
});
/** What {@link AprWindow} describes. */
export type AprWindow = z.output<typeof AprWindow>;

const network = wire.NetworkStakingInfo.shape;
/** What REST says of the network staking figures beyond the wire object. */
const stakingFigures = {
  ...amounts("totalStaked", "minValidatorStake"),
  unbondingPeriod: network.unbondingPeriod.meta({ description: "blocks" }),
  blockReward: wei.meta({ description: "wei minted per block" }),
  apr: fraction("annual rate the stake earned over aprWindow ('0' without a window)"),
  aprWindow: AprWindow.nullable().meta({
    description: "the completed epochs apr was measured over; null before the first epoch ends",
  }),
};

/** Network staking figures: `svc_getStakingInfo()`. */
export const Staking = wire.NetworkStakingInfo.extend(stakingFigures).meta({
  id: "Staking",
  description: "svc_getStakingInfo result (docs/consensus.md)",
});
/** What {@link Staking} describes. */
export type Staking = z.output<typeof Staking>;

/** An account's staking: `svc_getStakingInfo(address)`, the network figures plus that account's stake. */
export const AccountStaking = wire.AccountStakingInfo.extend({
  ...stakingFigures,
  ...amounts("selfStake", "totalDelegated", "pendingRewards"),
}).meta({
  id: "AccountStaking",
  description:
    "svc_getStakingInfo(address) result (docs/consensus.md): the network figures plus the account's stake",
});
/** What {@link AccountStaking} describes. */
export type AccountStaking = z.output<typeof AccountStaking>;

const depin = wire.DePINNode.shape;
/** A DePIN node: `svc_getDePINNodes`' object, with `uptime` as a fraction. */
export const DePINNode = wire.DePINNode.extend({
  ...amounts("stake", "rewards"),
  type: z.enum(wire.DEPIN_NODE_TYPES),
  registeredAt: depin.registeredAt.meta({ description: "block number of the registration, hex" }),
  lastHeartbeat: depin.lastHeartbeat.meta({ description: "block number of the last heartbeat, hex" }),
  uptime: fraction(
    "heartbeat buckets seen of those expected in the heartbeat window (svc_getDePINNodes gives a percentage)",
  ),
}).meta({ id: "DePINNode" });
/** What {@link DePINNode} describes. */
export type DePINNode = z.output<typeof DePINNode>;

/** An asset with indexed oracle prices. */
export const Feed = z
  .object({ asset: text, observations: int, latestPrice: text, ...time })
  .meta({ id: "Feed" });
/** What {@link Feed} describes. */
export type Feed = z.output<typeof Feed>;

const prediction = wire.Prediction.shape;
/** A price prediction: `svc_getAIPrediction`'s object, as the node gives it or the index kept it. */
export const Prediction = wire.Prediction.extend({
  confidence: fraction("calibrated probability that the price lands within ±5 % of predictedPrice"),
  quantiles: prediction.quantiles
    .optional()
    .meta({ description: "prices at the 5..95 % quantiles; 50 is predictedPrice, 10/90 are lower/upper" }),
  probabilityUp: fraction("probability that the price at the horizon is above currentPrice").optional(),
  stale: prediction.stale
    .optional()
    .meta({ description: "latest observation older than the oracle's staleness threshold" }),
}).meta({
  id: "Prediction",
  description:
    "svc_getAIPrediction result; quantiles, probabilityUp and stale are absent from a prediction an older node made",
});
/** What {@link Prediction} describes. */
export type Prediction = z.output<typeof Prediction>;

/** `GET /v1/predictions/{asset}`. */
export const PredictionView = z
  .object({
    prediction: orNull(Prediction),
    history: z.array(z.object({ ...time, price: text })).meta({ description: "daily closes, oldest first" }),
    backtest: z
      .object({
        mape: fractionNumber("mean absolute error relative to the price"),
        baselineMape: fractionNumber("the same for the naive last-price forecast"),
        coverage80: fractionNumber("share of realised prices inside the 80 % interval"),
        calibrationError: fractionNumber("mean gap between stated confidence and observed hit rate"),
        horizon: int.meta({ description: "days" }),
      })
      .nullable()
      .meta({
        description:
          "walk-forward backtest of the model on the indexed daily closes (null: too little history)",
      }),
  })
  .meta({ id: "PredictionView" });
/** What {@link PredictionView} describes. */
export type PredictionView = z.output<typeof PredictionView>;

/** `GET /v1/search`. */
export const SearchResult = z
  .object({
    type: z.enum(["block", "transaction", "address", "token"]).nullable(),
    value: z.union([text, int, z.null()]),
  })
  .meta({ id: "SearchResult" });
/** What {@link SearchResult} describes. */
export type SearchResult = z.output<typeof SearchResult>;

/** One row of `GET /v1/stats/blocks`. */
export const BlockStat = z
  .object({ number: int, timestamp: int, transactionCount: int, gasUsed: wei, gasLimit: wei })
  .meta({ id: "BlockStat" });
/** What {@link BlockStat} describes. */
export type BlockStat = z.output<typeof BlockStat>;
