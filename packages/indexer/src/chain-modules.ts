import { PRICE_DECIMALS, PRICE_ORACLE_ADDRESS, PriceOracle } from "@strata/contracts";
import type { Database, indexerDb } from "@strata/db";
import { indexerDb as store } from "@strata/db";
import {
  type DePINNode,
  type MethodName,
  type MethodResult,
  type Prediction,
  RpcError,
  type RpcLog,
  rpcRequest,
  type WireParams,
} from "@strata/protocol";
import type { Logger } from "pino";
import {
  decodeAbiParameters,
  decodeFunctionResult,
  encodeFunctionData,
  formatUnits,
  keccak256,
  toBytes,
  toEventSelector,
} from "viem";
import { isMethodNotFound, type RpcClient } from "./rpc-client.js";

type OraclePriceRow = indexerDb.OraclePriceRow;
type ValidatorSnapshotRow = indexerDb.ValidatorSnapshotRow;

const hex = (n: bigint) => `0x${n.toString(16)}`;
const ORACLE = PRICE_ORACLE_ADDRESS.toLowerCase();
const ANSWER_UPDATED = toEventSelector("AnswerUpdated(bytes32,uint256,int256,uint256,uint256)");
const ROUNDS_SEEDED = toEventSelector("RoundsSeeded(bytes32,address,uint256,uint256,uint256)");
const ROUNDS_PER_CALL = 500n;
/** Prediction horizons (days) the indexer records for every asset. */
export const PREDICTION_HORIZONS = [1, 7, 30] as const;
const RECHECK_MS = 5 * 60_000;

/**
 * Indexes the chain modules (staking, DePIN registry, price oracle, predictions) through the node's
 * `svc_*` methods and the oracle's events. A method the node answers with -32601 is skipped (and asked
 * again a few minutes later), so the indexer works against nodes without those modules.
 */
export class ChainModules {
  readonly #rpc: RpcClient;
  readonly #log: Logger;
  readonly #unavailable = new Map<string, number>();
  #epochLength: bigint | undefined;
  #assetsByKey = new Map<string, string>();

  constructor(rpc: RpcClient, log: Logger) {
    this.#rpc = rpc;
    this.#log = log;
  }

  /** Calls a `svc_*` method; `undefined` when the node does not serve it or it failed (logged). */
  async #svc<M extends MethodName>(method: M, params: WireParams<M>): Promise<MethodResult<M> | undefined> {
    const since = this.#unavailable.get(method);
    if (since !== undefined && Date.now() - since < RECHECK_MS) return undefined;
    try {
      const result = await this.#rpc.call(method, params);
      this.#unavailable.delete(method);
      return result;
    } catch (error) {
      if (isMethodNotFound(error)) {
        if (since === undefined) this.#log.info({ method }, "node does not serve %s; skipping it", method);
        this.#unavailable.set(method, Date.now());
        return undefined;
      }
      if (error instanceof RpcError) {
        // Not found / not enough data yet are expected answers (an asset without history); others are not.
        const expected = error.code === -32001 || error.code === -32002;
        this.#log[expected ? "debug" : "warn"](
          { method, code: error.code, err: error.message },
          "%s failed",
          method,
        );
        return undefined;
      }
      throw error;
    }
  }

  /**
   * Validator snapshot rows for block `number`: taken at each epoch's first block, and at any block
   * when `current` (the indexer is at the head, so the current epoch's row tracks the live figures).
   */
  async validatorSnapshot(number: bigint, current: boolean): Promise<ValidatorSnapshotRow[]> {
    if (this.#epochLength === undefined) {
      const info = await this.#svc("svc_getStakingInfo", []);
      if (info === undefined) return [];
      this.#epochLength = BigInt(info.epochLength);
      if (this.#epochLength <= 0n) this.#epochLength = 1n;
    }
    if (!current && number % this.#epochLength !== 0n) return [];
    const validators = await this.#svc("svc_getValidators", [hex(number)]);
    if (validators === undefined) return [];
    const epoch = number / this.#epochLength;
    return validators.map((v) => ({
      epoch,
      address: v.address.toLowerCase(),
      blockNumber: number,
      stake: v.stake,
      selfStake: v.selfStake,
      delegatedStake: v.delegatedStake,
      commission: v.commission,
      uptime: v.uptime,
      status: v.status,
      blocksProposed: BigInt(v.blocksProposed),
      blocksMissed: BigInt(v.blocksMissed),
      jailed: v.jailed,
    }));
  }

  /** Oracle prices reported in the block (`AnswerUpdated`), and the rounds a `RoundsSeeded` batch wrote. */
  async oraclePrices(number: bigint, logs: readonly RpcLog[]): Promise<OraclePriceRow[]> {
    const oracleLogs = logs.filter(
      (l) =>
        l.address.toLowerCase() === ORACLE &&
        (l.topics[0] === ANSWER_UPDATED || l.topics[0] === ROUNDS_SEEDED),
    );
    if (oracleLogs.length === 0) return [];
    const rows = new Map<string, OraclePriceRow>();
    const add = (row: OraclePriceRow) => rows.set(`${row.asset}/${row.observedAt}`, row);
    for (const log of oracleLogs) {
      const asset = await this.#assetOf(log.topics[1]!, number);
      if (asset === undefined) continue;
      if (log.topics[0] === ANSWER_UPDATED) {
        const [answer, updatedAt] = decodeAbiParameters(
          [{ type: "int256" }, { type: "uint256" }, { type: "uint256" }],
          log.data as `0x${string}`,
        );
        add({
          asset,
          observedAt: updatedAt,
          price: formatUnits(answer, PRICE_DECIMALS),
          roundId: BigInt(log.topics[2]!),
          blockNumber: number,
        });
      } else {
        const [from, to] = decodeAbiParameters(
          [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }],
          log.data as `0x${string}`,
        );
        for (const round of await this.#rounds(asset, from, to, number)) add(round);
      }
    }
    return [...rows.values()];
  }

  async #assetOf(key: string, number: bigint): Promise<string | undefined> {
    if (!this.#assetsByKey.has(key)) {
      const data = await this.#rpc.call("eth_call", [
        { to: ORACLE, data: encodeFunctionData({ abi: PriceOracle.abi, functionName: "assets" }) },
        hex(number),
      ]);
      const assets = decodeFunctionResult({
        abi: PriceOracle.abi,
        functionName: "assets",
        data,
      });
      for (const symbol of assets as readonly string[])
        this.#assetsByKey.set(keccak256(toBytes(symbol)), symbol);
    }
    return this.#assetsByKey.get(key);
  }

  async #rounds(asset: string, from: bigint, to: bigint, number: bigint): Promise<OraclePriceRow[]> {
    const calls = [];
    for (let start = from; start <= to; start += ROUNDS_PER_CALL) {
      const count = to - start + 1n < ROUNDS_PER_CALL ? to - start + 1n : ROUNDS_PER_CALL;
      calls.push(
        rpcRequest(
          "eth_call",
          {
            to: ORACLE,
            data: encodeFunctionData({
              abi: PriceOracle.abi,
              functionName: "getRounds",
              args: [asset, start, count],
            }),
          },
          hex(number),
        ),
      );
    }
    const answers = await this.#rpc.batch(calls);
    return answers.flatMap((data) => {
      const rounds = decodeFunctionResult({
        abi: PriceOracle.abi,
        functionName: "getRounds",
        data,
      });
      return (rounds as readonly { roundId: bigint; answer: bigint; updatedAt: bigint }[]).map((r) => ({
        asset,
        observedAt: r.updatedAt,
        price: formatUnits(r.answer, PRICE_DECIMALS),
        roundId: r.roundId,
        blockNumber: number,
      }));
    });
  }

  /** Replaces the stored DePIN registry with the node's current one. */
  async refreshDePIN(db: Database, number: bigint): Promise<void> {
    const nodes: DePINNode[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await this.#svc("svc_getDePINNodes", [{ status: "all", offset, limit: 1000 }]);
      if (page === undefined) return;
      nodes.push(...page);
      if (page.length < 1000) break;
    }
    await store.replaceDePINNodes(db, nodes, number);
  }

  /** Records the node's current prediction of every indexed asset at each of {@link PREDICTION_HORIZONS}. */
  async recordPredictions(db: Database, number: bigint): Promise<void> {
    const feeds = await store.priceFeeds(db);
    const predictions: Prediction[] = [];
    for (const { asset } of feeds) {
      for (const horizon of PREDICTION_HORIZONS) {
        const p = await this.#svc("svc_getAIPrediction", [asset, horizon]);
        if (p === undefined) {
          if (this.#unavailable.has("svc_getAIPrediction")) return;
          continue;
        }
        predictions.push(p);
      }
    }
    await store.insertPredictions(db, predictions, number);
  }
}
