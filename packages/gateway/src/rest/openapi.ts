/*
 * The OpenAPI 3.1 description of REST /v1, served at /v1/openapi.json and rendered at /docs.
 */

const str = { type: "string" } as const;
const int = { type: "integer" } as const;
const num = { type: "number" } as const;
const nullable = (schema: object) => ({ oneOf: [schema, { type: "null" }] });
const wei = {
  type: "string",
  pattern: "^\\d+$",
  description: "decimal integer (wei or token units)",
} as const;
const hex = { type: "string", pattern: "^0x[0-9a-f]*$" } as const;
/** Every ratio is a decimal fraction, never a percentage: 0.05 is 5 %, 1 is 100 %. */
const fraction = (what: string) => ({
  type: "string",
  pattern: "^\\d+(\\.\\d+)?$",
  description: `${what}: decimal fraction (0.05 = 5 %)`,
});
const fractionNumber = (what: string) => ({ ...num, description: `${what}: decimal fraction (0.05 = 5 %)` });
const hexOrInt = { oneOf: [hex, int] };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Record<string, object>, required = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
});
const list = (item: object) =>
  obj({
    items: { type: "array", items: item },
    nextCursor: { ...nullable(str), description: "pass as ?cursor= for the next page" },
  });
const time = {
  timestamp: { ...int, description: "unix seconds" },
  datetime: { ...str, format: "date-time" },
};

const limit = { name: "limit", in: "query", schema: { ...int, minimum: 1, maximum: 100, default: 25 } };
const cursor = { name: "cursor", in: "query", schema: str, description: "nextCursor of the previous page" };
const pathParam = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  schema: str,
  description,
});
const address = pathParam("address", "20-byte hex address");

function get(summary: string, schema: object, parameters: object[] = [], notFound = false) {
  return {
    get: {
      summary,
      parameters,
      responses: {
        "200": { description: "OK", content: { "application/json": { schema } } },
        "400": {
          description: "Malformed parameter",
          content: { "application/json": { schema: ref("Error") } },
        },
        ...(notFound
          ? { "404": { description: "Not found", content: { "application/json": { schema: ref("Error") } } } }
          : {}),
        "503": {
          description: "Index or node unavailable",
          content: { "application/json": { schema: ref("Error") } },
        },
      },
    },
  };
}

const schemas = {
  Error: obj({
    error: obj({ code: { type: "string", enum: ["bad_request", "not_found", "unavailable"] }, message: str }),
  }),
  Chain: obj({
    chainId: int,
    network: str,
    blockNumber: nullable(int),
    latestBlockTimestamp: nullable({ ...str, format: "date-time" }),
    timestamp: nullable(int),
    avgBlockTimeSeconds: nullable(num),
    tps: { ...num, description: "transactions per second over the last 100 blocks" },
    totalTransactions: int,
    totalAddresses: int,
    validatorCount: int,
    indexerLag: { ...nullable(int), description: "blocks the index is behind the node" },
  }),
  Block: obj({
    number: int,
    hash: hex,
    parentHash: hex,
    ...time,
    miner: hex,
    gasUsed: wei,
    gasLimit: wei,
    baseFeePerGas: nullable(wei),
    transactionCount: int,
    size: int,
  }),
  TransactionSummary: obj({
    hash: hex,
    blockNumber: int,
    blockHash: hex,
    index: int,
    ...time,
    from: hex,
    to: nullable(hex),
    value: wei,
    nonce: int,
    gas: wei,
    gasPrice: nullable(wei),
    maxFeePerGas: nullable(wei),
    maxPriorityFeePerGas: nullable(wei),
    type: int,
    status: { type: "string", enum: ["success", "reverted", "pending"] },
    gasUsed: nullable(wei),
    effectiveGasPrice: nullable(wei),
    contractAddress: nullable(hex),
    methodId: nullable(hex),
  }),
  Log: obj(
    {
      index: int,
      address: hex,
      topics: { type: "array", items: hex },
      data: hex,
      decoded: obj({ event: str, args: { type: "object" } }),
    },
    ["index", "address", "topics", "data"],
  ),
  TokenTransfer: obj({
    token: hex,
    symbol: nullable(str),
    decimals: nullable(int),
    from: hex,
    to: hex,
    value: wei,
    logIndex: int,
    transactionHash: hex,
    blockNumber: int,
    ...time,
  }),
  Transaction: {
    allOf: [
      ref("TransactionSummary"),
      obj({
        input: hex,
        revertReason: nullable(str),
        logs: { type: "array", items: ref("Log") },
        tokenTransfers: { type: "array", items: ref("TokenTransfer") },
      }),
    ],
  },
  Token: obj({
    address: hex,
    name: nullable(str),
    symbol: nullable(str),
    decimals: nullable(int),
    totalSupply: nullable(wei),
    firstSeenBlock: int,
  }),
  TokenDetail: {
    allOf: [
      ref("Token"),
      obj({
        transferCount: { ...int, description: "counted up to 10,000" },
        transferCountIsLowerBound: { type: "boolean", description: "true when there are more than 10,000" },
        holderCount: { ...nullable(int), description: "null when the token has more than 10,000 transfers" },
      }),
    ],
  },
  Address: obj(
    {
      address: hex,
      balance: { ...nullable(wei), description: "live from the node" },
      nonce: nullable(int),
      isContract: { type: "boolean" },
      code: nullable(hex),
      creator: nullable(hex),
      creationTransaction: nullable(hex),
      transactionCount: { ...int, description: "counted up to 10,000" },
      transactionCountIsLowerBound: { type: "boolean", description: "true when there are more than 10,000" },
      token: nullable(ref("Token")),
    },
    [
      "address",
      "balance",
      "nonce",
      "isContract",
      "creator",
      "creationTransaction",
      "transactionCount",
      "transactionCountIsLowerBound",
      "token",
    ],
  ),
  Validator: obj({
    address: hex,
    stake: wei,
    commission: fraction("share of rewards the validator keeps"),
    uptime: fraction(
      "slots proposed of those assigned in the last uptime window (svc_getValidators gives the same as a percentage)",
    ),
    status: { type: "string", enum: ["active", "inactive", "jailed", "unbonding"] },
    selfStake: wei,
    delegatedStake: wei,
    blocksProposed: int,
    blocksMissed: int,
    jailed: { type: "boolean" },
  }),
  ValidatorEpoch: obj({
    epoch: int,
    blockNumber: int,
    stake: wei,
    blocksProposed: nullable(int),
    blocksMissed: nullable(int),
    uptime: nullable(fraction("uptime at the snapshot")),
  }),
  Staking: {
    ...obj(
      {
        totalStaked: wei,
        validatorCount: int,
        activeValidatorCount: int,
        minValidatorStake: wei,
        epoch: int,
        epochLength: int,
        nextEpochBlock: hex,
        unbondingPeriod: { ...int, description: "blocks" },
        blockReward: { ...wei, description: "wei minted per block" },
        apr: fraction("annual rate the stake earned over aprWindow ('0' without a window)"),
        aprWindow: {
          ...nullable(
            obj({
              fromBlock: hex,
              toBlock: hex,
              epochs: { ...int, description: "completed epochs measured" },
              fullEpochs: { ...int, description: "epochs in a full window (10)" },
              seconds: { ...int, description: "chain time the span took" },
              complete: {
                type: "boolean",
                description: "a full window; before that apr is provisional and the explorer shows '-'",
              },
            }),
          ),
          description: "the completed epochs apr was measured over; null before the first epoch ends",
        },
      },
      [
        "totalStaked",
        "validatorCount",
        "activeValidatorCount",
        "minValidatorStake",
        "epoch",
        "epochLength",
        "nextEpochBlock",
        "unbondingPeriod",
        "blockReward",
        "apr",
        "aprWindow",
      ],
    ),
    description: "svc_getStakingInfo result (docs/consensus.md); with an address, also that account's stake",
  },
  DePINNode: obj({
    id: hex,
    owner: hex,
    type: { type: "string", enum: ["compute", "storage", "wireless", "sensor", "energy"] },
    region: str,
    endpoint: str,
    stake: wei,
    registeredAt: hexOrInt,
    lastHeartbeat: nullable(hexOrInt),
    lastHeartbeatAt: nullable({ ...str, format: "date-time" }),
    uptime: fraction(
      "heartbeat buckets seen of those expected in the heartbeat window (svc_getDePINNodes gives a percentage)",
    ),
    status: str,
    rewards: wei,
  }),
  Prediction: obj({
    asset: str,
    currentPrice: str,
    predictedPrice: str,
    confidence: fraction("calibrated probability that the price lands within ±5 % of predictedPrice"),
    horizon: int,
    timestamp: { ...str, format: "date-time" },
    lower: str,
    upper: str,
    modelVersion: str,
    source: str,
    quantiles: {
      ...obj({ "5": str, "10": str, "25": str, "50": str, "75": str, "90": str, "95": str }),
      description: "prices at the 5..95 % quantiles; 50 is predictedPrice, 10/90 are lower/upper",
    },
    probabilityUp: str,
    stale: { type: "boolean", description: "latest observation older than the oracle's staleness threshold" },
  }),
  PredictionView: obj({
    prediction: nullable(ref("Prediction")),
    history: {
      type: "array",
      items: obj({ ...time, price: str }),
      description: "daily closes, oldest first",
    },
    backtest: {
      ...nullable(
        obj({
          mape: fractionNumber("mean absolute error relative to the price"),
          baselineMape: fractionNumber("the same for the naive last-price forecast"),
          coverage80: fractionNumber("share of realised prices inside the 80 % interval"),
          calibrationError: fractionNumber("mean gap between stated confidence and observed hit rate"),
          horizon: { ...int, description: "days" },
        }),
      ),
      description:
        "walk-forward backtest of the model on the indexed daily closes (null: too little history)",
    },
  }),
  Feed: obj({ asset: str, observations: int, latestPrice: str, ...time }),
  SearchResult: obj({
    type: nullable({ type: "string", enum: ["block", "transaction", "address", "token"] }),
    value: { oneOf: [str, int, { type: "null" }] },
  }),
  BlockStat: obj({ number: int, timestamp: int, transactionCount: int, gasUsed: wei, gasLimit: wei }),
};

/** The OpenAPI 3.1 document of the REST API. */
export const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Strata REST API",
    version: "1.0.0",
    description:
      "Read-only views of the chain from the indexer's PostgreSQL, plus live reads from the node. JSON, camelCase; " +
      "amounts as decimal strings; ratios (commission, uptime, APR, confidence, backtest errors) as decimal fractions, " +
      "never percentages (0.05 = 5 %); block numbers and counts as numbers; times as `timestamp` (unix seconds) and " +
      "`datetime` (ISO 8601 UTC). Lists are `{items, nextCursor}`, paged with `?limit=` (1..100, default 25) and " +
      "`?cursor=`. Errors are `{error: {code, message}}`. Same API keys (`X-API-Key`) and rate limits as JSON-RPC.",
  },
  components: {
    schemas,
    securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "X-API-Key" } },
  },
  security: [{}, { apiKey: [] }],
  paths: {
    "/v1/chain": get("Chain overview", ref("Chain")),
    "/v1/blocks": get("Latest blocks", list(ref("Block")), [limit, cursor]),
    "/v1/blocks/{numberOrHash}": get(
      "One block with its transactions",
      { allOf: [ref("Block"), obj({ transactions: { type: "array", items: ref("TransactionSummary") } })] },
      [pathParam("numberOrHash", "block number (decimal or 0x) or block hash")],
      true,
    ),
    "/v1/transactions": get("Latest transactions", list(ref("TransactionSummary")), [limit, cursor]),
    "/v1/transactions/{hash}": get(
      "One transaction with receipt, decoded logs and token transfers",
      ref("Transaction"),
      [pathParam("hash", "transaction hash")],
      true,
    ),
    "/v1/addresses/{address}": get("Address overview", ref("Address"), [address]),
    "/v1/addresses/{address}/transactions": get(
      "Transactions from or to an address",
      list(ref("TransactionSummary")),
      [address, limit, cursor],
    ),
    "/v1/addresses/{address}/token-transfers": get(
      "Token transfers from or to an address",
      list(ref("TokenTransfer")),
      [address, limit, cursor],
    ),
    "/v1/tokens": get("ERC-20 tokens, newest first", list(ref("Token")), [limit, cursor]),
    "/v1/tokens/{address}": get("One token", ref("TokenDetail"), [address], true),
    "/v1/tokens/{address}/transfers": get(
      "Transfers of a token",
      list(ref("TokenTransfer")),
      [address, limit, cursor],
      true,
    ),
    "/v1/validators": get("Validator set (svc_getValidators)", list(ref("Validator"))),
    "/v1/validators/{address}/history": get(
      "A validator's per-epoch snapshots, newest first",
      list(ref("ValidatorEpoch")),
      [address, limit, cursor],
    ),
    "/v1/staking": get("Network staking figures (svc_getStakingInfo)", ref("Staking")),
    "/v1/staking/{address}": get(
      "An account's staking (svc_getStakingInfo)",
      ref("Staking"),
      [address],
      true,
    ),
    "/v1/depin/nodes": get("DePIN nodes", list(ref("DePINNode")), [
      {
        name: "type",
        in: "query",
        schema: { type: "string", enum: ["compute", "storage", "wireless", "sensor", "energy"] },
      },
      { name: "region", in: "query", schema: str },
      {
        name: "status",
        in: "query",
        schema: { type: "string", enum: ["active", "inactive"] },
        description: "default: all",
      },
      limit,
      cursor,
    ]),
    "/v1/predictions": get("Assets with price feeds", list(ref("Feed"))),
    "/v1/predictions/{asset}": get(
      "Price prediction and price history of an asset",
      ref("PredictionView"),
      [
        pathParam("asset", "asset symbol, e.g. STRA"),
        {
          name: "horizon",
          in: "query",
          schema: { ...int, minimum: 1, maximum: 365, default: 1 },
          description: "days",
        },
      ],
      true,
    ),
    "/v1/search": get("Classify a search term", ref("SearchResult"), [
      {
        name: "q",
        in: "query",
        required: true,
        schema: str,
        description: "block number, hash, address or token symbol",
      },
    ]),
    "/v1/stats/blocks": get(
      "Recent blocks for charts, oldest first",
      { type: "array", items: ref("BlockStat") },
      [{ name: "count", in: "query", schema: { ...int, minimum: 1, maximum: 500, default: 100 } }],
    ),
  },
} as const;
