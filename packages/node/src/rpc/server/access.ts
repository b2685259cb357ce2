import type { IncomingMessage } from "node:http";
import { ErrorCode, encodeError, type ParsedBody, RpcError } from "@strata/protocol";
import type { BoundedStructure } from "../../metrics/bounded-structure.js";

/** Who is asking: the `X-API-Key` value (if any) and the client's IP address. */
export interface Caller {
  readonly apiKey: string | undefined;
  readonly ip: string;
}

/** A gate's answer, with the `RateLimit-*`/`Retry-After` headers to send either way. */
export type GateDecision =
  | { readonly allowed: true; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly allowed: false;
      /** The refusal; its `httpStatus` is the status of a refused HTTP request (401, 429, 503). */
      readonly error: RpcError;
      readonly headers: Readonly<Record<string, string>>;
    };

/**
 * API keys and rate limits on the node's own port (DECISIONS.md "API keys, tiers and rate limits").
 * The node has none by default; `strata node --api-keys` passes the gateway's access control here.
 */
export interface RequestGate {
  /** Checks the caller's key and charges `cost` calls against its limits. */
  authorize(caller: Caller, cost: number): Promise<GateDecision>;
  /** Its caches and counters with their bounds (key lookups, limiter subjects), for the metrics. */
  structures?(): readonly BoundedStructure[];
}

/** The gate could not check a caller (its key database is unreachable): HTTP 503, -32002. */
export class AccessCheckUnavailableError extends RpcError {
  constructor(cause?: unknown) {
    super(ErrorCode.ResourceUnavailable, "API key check unavailable", { httpStatus: 503, cause });
  }
}

/** {@link RequestGate.authorize}, with a failing gate turned into a refusal. */
export async function authorize(gate: RequestGate, caller: Caller, cost: number): Promise<GateDecision> {
  try {
    return await gate.authorize(caller, cost);
  } catch (error) {
    return { allowed: false, error: new AccessCheckUnavailableError(error), headers: {} };
  }
}

/** The caller of a request: its `X-API-Key` header (else the `apiKey` query parameter) and its IP. */
export function callerOf(req: IncomingMessage): Caller {
  const header = req.headers["x-api-key"];
  let apiKey = Array.isArray(header) ? header[0] : header;
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  if (apiKey === undefined && query >= 0)
    apiKey = new URLSearchParams(url.slice(query + 1)).get("apiKey") ?? undefined;
  return { apiKey: apiKey?.trim(), ip: req.socket.remoteAddress ?? "unknown" };
}

/** How many calls a body costs: one per batch entry, one for anything else. */
export function costOf(parsed: ParsedBody): number {
  return parsed.kind === "batch" ? parsed.entries.length : 1;
}

/** The answer to an HTTP body the gate refused: one error, under the id of a single request. */
export function bodyRefusal(parsed: ParsedBody, error: RpcError): string {
  return encodeError(parsed.kind === "single" ? parsed.entry.idJson : "null", error);
}

/**
 * The answer to a WebSocket message the gate refused: the error under the request's id, one error
 * per entry for a batch, under `null` when the message was not a valid request.
 */
export function messageRefusal(parsed: ParsedBody, error: RpcError): string {
  if (parsed.kind === "batch")
    return `[${parsed.entries.map((e) => encodeError(e.idJson, error)).join(",")}]`;
  return bodyRefusal(parsed, error);
}
