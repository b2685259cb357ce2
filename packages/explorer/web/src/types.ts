/** Shapes of the gateway's REST `/v1` responses, as the explorer reads them. */

/** A page of a list endpoint. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** `GET /v1/chain`. */
export interface ChainInfo {
  chainId: number;
  network: string;
  blockNumber: number;
  latestBlockTimestamp: string;
  avgBlockTimeSeconds: number;
  tps: number;
  totalTransactions: number;
  totalAddresses: number;
  validatorCount: number;
  indexerLag: number;
}

/** A block, with its transactions when the endpoint includes them. */
export interface Block {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: string | number;
  miner: string;
  gasUsed: string | number;
  gasLimit: string | number;
  baseFeePerGas: string | null;
  transactionCount: number;
  size: number;
  transactions?: (Transaction | string)[];
}

/** An event log, decoded when the indexer knows its ABI. */
export interface Log {
  index: number;
  address: string;
  topics: string[];
  data: string;
  decoded?: { event: string; args: Record<string, unknown> | unknown[] } | null;
}

/** An ERC-20 transfer found in a transaction's logs. */
export interface TokenTransfer {
  token: string;
  symbol: string | null;
  decimals: number | null;
  from: string;
  to: string;
  value: string;
  logIndex: number;
  transactionHash?: string;
  blockNumber?: number;
  timestamp?: string | number;
}

/** A transaction with its receipt fields. */
export interface Transaction {
  hash: string;
  blockNumber: number | null;
  blockHash: string | null;
  index: number | null;
  from: string;
  to: string | null;
  value: string;
  nonce: number;
  gas: string | number;
  gasPrice: string | null;
  maxFeePerGas?: string | null;
  maxPriorityFeePerGas?: string | null;
  type: number | string;
  input?: string;
  status: "success" | "reverted" | "pending";
  gasUsed?: string | number | null;
  effectiveGasPrice?: string | null;
  contractAddress?: string | null;
  revertReason?: string | null;
  timestamp?: string | number;
  logs?: Log[];
  tokenTransfers?: TokenTransfer[];
}

/** `GET /v1/addresses/{address}`. */
export interface AddressInfo {
  address: string;
  balance: string;
  nonce: number;
  isContract: boolean;
  code?: string | null;
  creator?: string | null;
  creationTransaction?: string | null;
  /** Counted up to 10,000; `transactionCountIsLowerBound` when there are more. */
  transactionCount: number;
  transactionCountIsLowerBound?: boolean;
  token?: Token | null;
}

/** An ERC-20 token. */
export interface Token {
  address: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  /** Counted up to 10,000; `transferCountIsLowerBound` when there are more. */
  transferCount?: number;
  transferCountIsLowerBound?: boolean;
  /** `null` when the token has more transfers than the API sums up. */
  holderCount?: number | null;
}

/** A validator in `GET /v1/validators`. */
export interface Validator {
  address: string;
  stake: string;
  commission: number | string;
  uptime: number | string;
  status: string;
  selfStake: string;
  delegatedStake: string;
  blocksProposed: number;
  blocksMissed: number;
  jailed: boolean;
}

/** One epoch of `GET /v1/validators/{address}/history`. */
export interface ValidatorEpoch {
  epoch: number;
  blockNumber: number;
  stake: string;
  blocksProposed: number | null;
  blocksMissed: number | null;
  uptime: number | string | null;
}

/** `GET /v1/staking`. */
export interface StakingInfo {
  totalStaked: string;
  validatorCount: number;
  activeValidatorCount: number;
  minValidatorStake: string;
  epoch: number;
  epochLength: number;
  nextEpochBlock: number;
  unbondingPeriod: number;
  blockReward: string;
  /** Decimal fraction, measured over `aprWindow`. */
  apr: number | string;
  /** The completed epochs `apr` covers; null before the first epoch ends. */
  aprWindow: AprWindow | null;
}

/** The span an APR was measured over (`complete` once it is a full window). */
export interface AprWindow {
  fromBlock: string | number;
  toBlock: string | number;
  epochs: number;
  fullEpochs: number;
  seconds: number;
  complete: boolean;
}

/** A DePIN node in `GET /v1/depin/nodes`. */
export interface DepinNode {
  id: string | number;
  owner: string;
  type: string;
  region: string;
  endpoint: string;
  stake: string;
  registeredAt: string | number;
  lastHeartbeat: number | string | null;
  lastHeartbeatAt: string | null;
  uptime: number | string;
  status: string;
  rewards: string;
}

/** `GET /v1/predictions/{asset}`. */
export interface PredictionView {
  /** Null while the model has too little history for this asset. */
  prediction: {
    asset: string;
    currentPrice: number | string;
    predictedPrice: number | string;
    confidence: number | string;
    horizon: number;
    timestamp: string | number;
    lower: number | string;
    upper: number | string;
    modelVersion: string;
    source: string;
    /** Prices at the 5/10/25/50/75/90/95 % quantiles, when the node gives them. */
    quantiles?: unknown;
  } | null;
  history: { timestamp: string | number; price: number | string }[];
  backtest?: {
    mape: number;
    baselineMape: number;
    coverage80: number;
    calibrationError: number;
    horizon: number;
  } | null;
}

/** `GET /v1/search`. */
export interface SearchResult {
  type: "block" | "transaction" | "address" | "token" | null;
  value: string | number | null;
}

/** One row of `GET /v1/stats/blocks`. */
export interface BlockStat {
  number: number;
  timestamp: string | number;
  transactionCount: number;
  gasUsed: string | number;
  gasLimit: string | number;
}

/** A frame of a `callTracer` trace. */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}
