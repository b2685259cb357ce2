import {
  encodeError,
  encodeResult,
  isRejected,
  type ParsedBody,
  parseBody,
  type RejectedRequest,
  type RpcRequest,
} from "@strata/protocol";
import type { Logger } from "pino";
import { toRpcError } from "./errors.js";
import type { MethodRegistry, RpcContext } from "./registry.js";
import type { RpcServices } from "./services.js";

/** The answer to one body: JSON text, or nothing when every request was a notification. */
export interface DispatchResult {
  readonly body: string | undefined;
  /** HTTP status for a body refused as a whole (200 for JSON-RPC answers). */
  readonly status: number;
}

/** Told of every answered request: its method (`"unknown"` when the node has none such), time and outcome. */
export type RequestObserver = (method: string, seconds: number, failed: boolean) => void;

/**
 * Turns a JSON-RPC body into its response body, transport-independently (HTTP and WebSocket both use
 * it): envelope validation, batch rules, method dispatch and the error mapping.
 */
export class RpcDispatcher {
  constructor(
    private readonly registry: MethodRegistry,
    private readonly services: RpcServices,
    private readonly log: Logger,
    private readonly observe?: RequestObserver,
  ) {}

  /** Answers a raw body; `context` describes the connection it came over. */
  dispatch(text: string, context: RpcContext = {}): Promise<DispatchResult> {
    return this.dispatchParsed(parseBody(text, this.services.config.rpc.maxBatch), context);
  }

  /** Answers a body already parsed (by a transport that looked at it first, e.g. to count its calls). */
  async dispatchParsed(parsed: ParsedBody, context: RpcContext = {}): Promise<DispatchResult> {
    if (parsed.kind === "invalid")
      return { body: encodeError("null", parsed.error), status: parsed.error.httpStatus };
    if (parsed.kind === "single") {
      const answer = await this.answer(parsed.entry, context);
      return { body: answer, status: 200 };
    }
    const answers = await Promise.all(parsed.entries.map((entry) => this.answer(entry, context)));
    const present = answers.filter((a): a is string => a !== undefined);
    return { body: present.length > 0 ? `[${present.join(",")}]` : undefined, status: 200 };
  }

  private async answer(
    entry: RpcRequest | RejectedRequest,
    context: RpcContext,
  ): Promise<string | undefined> {
    if (isRejected(entry)) return encodeError(entry.idJson, entry.error);
    const started = this.observe === undefined ? 0 : performance.now();
    let failed = false;
    let response: string;
    try {
      response = encodeResult(
        entry.idJson,
        await this.registry.call(entry.method, entry.params, this.services, context),
      );
    } catch (error) {
      const rpcError = toRpcError(error, (e) =>
        this.log.error({ err: e, method: entry.method }, "internal error"),
      );
      response = encodeError(entry.idJson, rpcError);
      failed = true;
    }
    if (this.observe !== undefined) {
      const method = this.registry.has(entry.method) ? entry.method : "unknown";
      this.observe(method, (performance.now() - started) / 1000, failed);
    }
    return entry.notification ? undefined : response;
  }
}
