import {
  BatchBudget,
  encodeError,
  encodeResult,
  InternalError,
  isRejected,
  LimitExceededError,
  type ParsedBody,
  type RejectedRequest,
  RpcError,
  type RpcRequest,
} from "@strata/protocol";
import type { Logger } from "pino";
import { UpstreamUnavailableError } from "../errors.js";
import { UpstreamResponseTooLargeError, UpstreamTransportError } from "../upstream/http-client.js";
import type { UpstreamPool } from "../upstream/upstream-pool.js";
import { type AnswerObject, matchAnswers, UpstreamRpcError } from "../upstream/upstream-rpc.js";
import { callApiMethod, isApiMethod } from "./api-methods.js";
import type { HeadCache } from "./head-cache.js";

/** The answer to one body: JSON text (undefined when every call was a notification) and its HTTP status. */
export interface ProxyAnswer {
  readonly body: string | undefined;
  readonly status: number;
}

const SEND_RAW = "eth_sendRawTransaction";

/** Largest batch formed from single calls that arrive together. */
const MAX_COALESCED = 100;
/** Calls with a larger body travel alone. */
const MAX_COALESCED_BODY = 4 * 1024;

/**
 * Cheap reads with small, bounded answers: the only calls that share a round trip, so a batch never
 * waits for a slow call nor nears the node's response size limit.
 */
const COALESCED_METHODS: ReadonlySet<string> = new Set([
  "eth_blockNumber",
  "eth_chainId",
  "net_version",
  "net_listening",
  "web3_clientVersion",
  "eth_syncing",
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_blobBaseFee",
  "eth_getBalance",
  "eth_getTransactionCount",
  "eth_getStorageAt",
  "eth_getTransactionByHash",
  "eth_getTransactionReceipt",
  "eth_getBlockTransactionCountByNumber",
  "eth_getBlockTransactionCountByHash",
]);

/** A single call waiting for the next upstream round trip. */
interface QueuedCall {
  readonly entry: RpcRequest;
  readonly text: string;
  readonly resolve: (answer: ProxyAnswer) => void;
}

/**
 * Answers parsed JSON-RPC bodies: `api_*` methods locally, everything else from the upstream nodes.
 * A single call travels to the node byte for byte; a batch is split (local calls, transaction sends
 * and the rest as one sub-batch under fresh ids) and reassembled in the client's order with its ids.
 * Single calls that arrive in the same turn of the event loop share one upstream round trip: they are
 * sent as one batch (at most {@link MAX_COALESCED}), which halves the gateway's socket work under
 * concurrent load; a call that arrives alone still travels byte for byte.
 * Head-dependent cheap reads (`eth_blockNumber`, `eth_chainId`, …) are answered from the
 * {@link HeadCache} while its subscription is live, under the caller's id.
 * `eth_sendRawTransaction` is never retried blindly: see {@link RpcProxy.sendRawTransaction}.
 */
export class RpcProxy {
  private queue: QueuedCall[] = [];

  constructor(
    private readonly pool: UpstreamPool,
    private readonly log: Logger,
    private readonly heads?: HeadCache,
    /** Largest answer to a batch (see {@link answerEntries}). */
    private readonly maxResponseBytes = 25 * 1024 * 1024,
  ) {}

  /** Answers a parsed body; `text` is its source, forwarded unchanged for a plain single call. */
  async answer(parsed: ParsedBody, text: string): Promise<ProxyAnswer> {
    if (parsed.kind === "invalid") return { body: encodeError("null", parsed.error), status: 200 };
    if (parsed.kind === "single") {
      const entry = parsed.entry;
      if (!isRejected(entry) && !isApiMethod(entry.method) && entry.method !== SEND_RAW) {
        const cached = this.cached(entry);
        if (cached !== undefined) return { body: entry.notification ? undefined : cached, status: 200 };
        return this.enqueue(entry, text);
      }
      return { body: await this.answerLocal(entry), status: 200 };
    }
    const answers = await this.answerEntries(parsed.entries);
    const present = answers.filter((a): a is string => a !== undefined);
    return { body: present.length > 0 ? `[${present.join(",")}]` : undefined, status: 200 };
  }

  /** The answer from the head cache under the entry's own id, or undefined when it must be proxied. */
  private cached(entry: RpcRequest): string | undefined {
    const result = this.heads?.lookup(entry.method, entry.params);
    return result === undefined ? undefined : encodeResult(entry.idJson, result);
  }

  private enqueue(entry: RpcRequest, text: string): Promise<ProxyAnswer> {
    if (!COALESCED_METHODS.has(entry.method) || text.length > MAX_COALESCED_BODY) {
      return this.forwardSingle(entry, text);
    }
    return new Promise((resolve) => {
      if (this.queue.push({ entry, text, resolve }) === 1) setImmediate(() => this.flush());
    });
  }

  /** Sends the queued single calls: alone as they came, or together as batches. */
  private flush(): void {
    const calls = this.queue;
    this.queue = [];
    if (calls.length === 1) {
      const [only] = calls as [QueuedCall];
      void this.forwardSingle(only.entry, only.text).then(only.resolve);
      return;
    }
    for (let start = 0; start < calls.length; start += MAX_COALESCED) {
      const group = calls.slice(start, start + MAX_COALESCED);
      void this.forwardBatch(group.map((c) => c.entry)).then((bodies) => {
        group.forEach((c, i) => {
          c.resolve({ body: bodies[i], status: 200 });
        });
      });
    }
  }

  private async forwardSingle(entry: RpcRequest, text: string): Promise<ProxyAnswer> {
    try {
      const { status, body } = await this.pool.send(text);
      if (entry.notification || body === "") return { body: undefined, status: 200 };
      return { body, status };
    } catch (error) {
      return {
        body: entry.notification ? undefined : encodeError(entry.idJson, this.toRpcError(error)),
        status: 200,
      };
    }
  }

  /** Answers a rejected entry, an `api_*` call or a transaction send. */
  private async answerLocal(entry: RpcRequest | RejectedRequest): Promise<string | undefined> {
    if (isRejected(entry)) return encodeError(entry.idJson, entry.error);
    let response: string;
    try {
      const result =
        entry.method === SEND_RAW
          ? await this.sendRawTransaction(entry.params)
          : await callApiMethod(this.pool, entry.method, entry.params);
      response = encodeResult(entry.idJson, JSON.stringify(result));
    } catch (error) {
      response = encodeError(entry.idJson, this.toRpcError(error));
    }
    return entry.notification ? undefined : response;
  }

  /**
   * Answers the entries of a batch, in order; undefined for notifications. The answers together stay
   * within `maxResponseBytes` ({@link BatchBudget}): each is measured as it arrives, and those that do
   * not fit become -32005 and are dropped at once.
   */
  async answerEntries(entries: readonly (RpcRequest | RejectedRequest)[]): Promise<(string | undefined)[]> {
    const budget = new BatchBudget(this.maxResponseBytes, entries);
    const answers = this.startEntries(entries).map((answer, i) =>
      answer.then((text) => budget.fit(entries[i]!, text)),
    );
    return Promise.all(answers);
  }

  private startEntries(entries: readonly (RpcRequest | RejectedRequest)[]): Promise<string | undefined>[] {
    const answers: Promise<string | undefined>[] = [];
    const forwarded: { index: number; entry: RpcRequest }[] = [];
    for (const [index, entry] of entries.entries()) {
      if (isRejected(entry) || isApiMethod(entry.method) || entry.method === SEND_RAW) {
        answers[index] = this.answerLocal(entry);
        continue;
      }
      const cached = this.cached(entry);
      if (cached !== undefined) {
        answers[index] = Promise.resolve(entry.notification ? undefined : cached);
      } else {
        forwarded.push({ index, entry });
      }
    }
    if (forwarded.length > 0) {
      const remote = this.forwardBatch(forwarded.map((f) => f.entry));
      forwarded.forEach((f, i) => {
        answers[f.index] = remote.then((list) => list[i]);
      });
    }
    return answers;
  }

  /** Sends `entries` as one batch under ids 0..n-1 and re-encodes each answer under the client's id. */
  private async forwardBatch(entries: readonly RpcRequest[]): Promise<(string | undefined)[]> {
    const body = `[${entries
      .map((e, id) =>
        JSON.stringify(
          e.notification
            ? { jsonrpc: "2.0", method: e.method, params: e.params }
            : { jsonrpc: "2.0", id, method: e.method, params: e.params },
        ),
      )
      .join(",")}]`;
    let answers: AnswerObject[];
    try {
      answers = matchAnswers((await this.pool.send(body)).body, entries.length);
    } catch (error) {
      const rpcError = this.toRpcError(error);
      return entries.map((e) => (e.notification ? undefined : encodeError(e.idJson, rpcError)));
    }
    return entries.map((e, i) => {
      if (e.notification) return undefined;
      const answer = answers[i]!;
      return answer.error !== undefined
        ? `{"jsonrpc":"2.0","id":${e.idJson},"error":${JSON.stringify(answer.error)}}`
        : encodeResult(e.idJson, JSON.stringify(answer.result ?? null));
    });
  }

  /**
   * Sends a raw transaction to one node. It moves to the next node only when the first certainly
   * never received it (connection refused) or may have received it (reset, timeout); in the latter
   * case the next node's "already known", or "nonce too low" for a transaction it already has, means
   * the transaction is in the network and the send succeeded: the answer is its hash.
   */
  private async sendRawTransaction(params: readonly unknown[]): Promise<unknown> {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: SEND_RAW, params });
    let maybeDelivered = false;
    let lastError: unknown;
    for (const url of this.pool.candidateUrls()) {
      let answer: AnswerObject;
      try {
        answer = JSON.parse((await this.pool.sendTo(url, body)).body) as AnswerObject;
      } catch (error) {
        lastError = error;
        if (error instanceof UpstreamTransportError && error.maybeDelivered) maybeDelivered = true;
        continue;
      }
      if (answer.error === undefined) return answer.result;
      if (maybeDelivered && typeof params[0] === "string") {
        const known = await this.alreadyInNetwork(url, params[0], answer.error.message);
        if (known !== undefined) return known;
      }
      throw new UpstreamRpcError(answer.error);
    }
    throw this.toRpcError(lastError);
  }

  /** The hash of `raw` when `url` reports it already has the transaction; undefined otherwise. */
  private async alreadyInNetwork(url: string, raw: string, message: string): Promise<string | undefined> {
    if (message !== "already known" && message !== "nonce too low") return undefined;
    const hashBody = JSON.stringify([{ jsonrpc: "2.0", id: 0, method: "web3_sha3", params: [raw] }]);
    const [hashAnswer] = matchAnswers((await this.pool.sendTo(url, hashBody)).body, 1);
    const hash = hashAnswer?.result;
    if (typeof hash !== "string") return undefined;
    if (message === "already known") return hash;
    const lookup = JSON.stringify([
      { jsonrpc: "2.0", id: 0, method: "eth_getTransactionByHash", params: [hash] },
    ]);
    const [found] = matchAnswers((await this.pool.sendTo(url, lookup)).body, 1);
    return found?.result ? hash : undefined;
  }

  private toRpcError(error: unknown): RpcError {
    if (error instanceof RpcError) return error;
    if (error instanceof UpstreamResponseTooLargeError)
      return new LimitExceededError(`response exceeds ${this.maxResponseBytes} bytes`, {
        limit: "responseBytes",
        max: this.maxResponseBytes,
      });
    if (error instanceof UpstreamTransportError) {
      // The message names the node's URL: logged, never told to the client.
      this.log.warn({ err: error }, "upstream request failed");
      return new UpstreamUnavailableError();
    }
    this.log.error({ err: error }, "internal error");
    return new InternalError();
  }
}
