import {
  BatchBudget,
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
import { andThen, type MaybePromise } from "./maybe-promise.js";
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

  /**
   * Answers a raw body; `context` describes the connection it came over. A single request whose
   * method answers at once is answered at once, without a promise.
   */
  dispatch(text: string, context: RpcContext = {}): MaybePromise<DispatchResult> {
    return this.dispatchParsed(parseBody(text, this.services.config.rpc.maxBatch), context);
  }

  /** Answers a body already parsed (by a transport that looked at it first, e.g. to count its calls). */
  dispatchParsed(parsed: ParsedBody, context: RpcContext = {}): MaybePromise<DispatchResult> {
    if (parsed.kind === "invalid")
      return { body: encodeError("null", parsed.error), status: parsed.error.httpStatus };
    if (parsed.kind === "single") {
      return andThen(this.answer(parsed.entry, context), singleResult);
    }
    return this.answerBatch(parsed.entries, context);
  }

  /**
   * Answers a batch within the response cap while it is built ({@link BatchBudget}): an answer that
   * does not fit, and every entry after the budget is spent, gets -32005; entries not yet started
   * then never run.
   */
  private async answerBatch(
    entries: readonly (RpcRequest | RejectedRequest)[],
    context: RpcContext,
  ): Promise<DispatchResult> {
    const budget = new BatchBudget(this.services.config.rpc.maxResponseBytes, entries);
    const answers: MaybePromise<string | undefined>[] = [];
    for (const entry of entries) {
      answers.push(
        budget.spent
          ? budget.refuse(entry)
          : andThen(this.answer(entry, context), (answer) => budget.fit(entry, answer)),
      );
    }
    const present = (await Promise.all(answers)).filter((a): a is string => a !== undefined);
    return { body: present.length > 0 ? `[${present.join(",")}]` : undefined, status: 200 };
  }

  private answer(entry: RpcRequest | RejectedRequest, context: RpcContext): MaybePromise<string | undefined> {
    if (isRejected(entry)) return encodeError(entry.idJson, entry.error);
    const started = this.observe === undefined ? 0 : performance.now();
    let result: MaybePromise<string>;
    try {
      result = this.registry.call(entry.method, entry.params, this.services, context);
    } catch (error) {
      return this.failed(entry, started, error);
    }
    return andThen(
      result,
      (json) => this.answered(entry, started, json),
      (error) => this.failed(entry, started, error),
    );
  }

  private answered(entry: RpcRequest, started: number, json: string): string | undefined {
    return this.finish(entry, started, encodeResult(entry.idJson, json), false);
  }

  private failed(entry: RpcRequest, started: number, error: unknown): string | undefined {
    const rpcError = toRpcError(error, (e) =>
      this.log.error({ err: e, method: entry.method }, "internal error"),
    );
    return this.finish(entry, started, encodeError(entry.idJson, rpcError), true);
  }

  /** Reports the request to the observer; a notification's response is dropped. */
  private finish(entry: RpcRequest, started: number, response: string, failed: boolean): string | undefined {
    if (this.observe !== undefined) {
      const method = this.registry.has(entry.method) ? entry.method : "unknown";
      this.observe(method, (performance.now() - started) / 1000, failed);
    }
    return entry.notification ? undefined : response;
  }
}

function singleResult(body: string | undefined): DispatchResult {
  return { body, status: 200 };
}
