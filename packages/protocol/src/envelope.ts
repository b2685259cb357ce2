import { InvalidParamsError, InvalidRequestError, ParseError, type RpcError } from "./errors.js";

/** A JSON-RPC request id as sent by the client. */
export type RequestId = string | number | null;

/** A validated JSON-RPC request. `idJson` is the id's exact JSON text, echoed verbatim. */
export interface RpcRequest {
  readonly method: string;
  readonly params: readonly unknown[];
  readonly idJson: string;
  /** True when the request carried no `id`: it gets no response. */
  readonly notification: boolean;
}

/** A request that failed envelope validation; it is answered with `error` under `idJson`. */
export interface RejectedRequest {
  readonly error: RpcError;
  readonly idJson: string;
  readonly notification: boolean;
}

/** The parsed body of an HTTP or WebSocket message. */
export type ParsedBody =
  | { readonly kind: "single"; readonly entry: RpcRequest | RejectedRequest }
  | { readonly kind: "batch"; readonly entries: readonly (RpcRequest | RejectedRequest)[] }
  | { readonly kind: "invalid"; readonly error: RpcError };

/** True when a parsed entry was rejected at the envelope level. */
export function isRejected(entry: RpcRequest | RejectedRequest): entry is RejectedRequest {
  return "error" in entry;
}

/** Parses a JSON-RPC body (single or batch) without losing the exact text of numeric ids. */
export function parseBody(text: string, maxBatch: number): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "invalid", error: new ParseError() };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: "invalid", error: new InvalidRequestError("empty batch") };
    if (value.length > maxBatch)
      return { kind: "invalid", error: new InvalidRequestError("batch too large") };
    const rawIds = needsRawIds(value) ? scanRawIds(text, 2) : undefined;
    return { kind: "batch", entries: value.map((v, i) => validateEnvelope(v, rawIds?.get(i))) };
  }
  const rawIds = needsRawIds([value]) ? scanRawIds(text, 1) : undefined;
  return { kind: "single", entry: validateEnvelope(value, rawIds?.get(0)) };
}

/** Validates one envelope object. `rawId` is the id's source text when it must be echoed verbatim. */
export function validateEnvelope(value: unknown, rawId?: string): RpcRequest | RejectedRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { error: new InvalidRequestError("invalid request"), idJson: "null", notification: false };
  }
  const obj = value as Record<string, unknown>;
  const hasId = Object.hasOwn(obj, "id");
  const id = obj.id;
  const idOk = id === null || typeof id === "string" || typeof id === "number";
  const idJson = hasId && idOk ? (rawId ?? JSON.stringify(id)) : "null";
  const notification = !hasId;
  if (hasId && !idOk) return { error: new InvalidRequestError("invalid request id"), idJson, notification };
  if (obj.jsonrpc !== "2.0") {
    return { error: new InvalidRequestError("invalid or missing jsonrpc version"), idJson, notification };
  }
  if (typeof obj.method !== "string" || obj.method.length === 0) {
    return { error: new InvalidRequestError("invalid or missing method"), idJson, notification };
  }
  const params = obj.params;
  if (params === undefined || params === null)
    return { method: obj.method, params: [], idJson, notification };
  if (Array.isArray(params)) return { method: obj.method, params, idJson, notification };
  if (typeof params === "object") {
    return { error: new InvalidParamsError("non-array params are not supported"), idJson, notification };
  }
  return { error: new InvalidRequestError("params must be an array"), idJson, notification };
}

/** Serializes a success response; `resultJson` is already JSON text. */
export function encodeResult(idJson: string, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":${resultJson}}`;
}

/** Serializes an error response. */
export function encodeError(idJson: string, error: RpcError): string {
  return `{"jsonrpc":"2.0","id":${idJson},"error":${JSON.stringify(error.toJSON())}}`;
}

function needsRawIds(values: unknown[]): boolean {
  for (const v of values) {
    if (typeof v === "object" && v !== null) {
      const id = (v as { id?: unknown }).id;
      if (typeof id === "number" && !Number.isSafeInteger(id)) return true;
    }
  }
  return false;
}

/**
 * Finds the source text of numeric `id` members of the objects at nesting `depth`
 * (1: the top-level object; 2: the objects of a top-level batch array), keyed by their index.
 */
function scanRawIds(text: string, depth: number): Map<number, string> {
  const ids = new Map<number, string>();
  let level = 0;
  let objectIndex = -1;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (level === depth && text.slice(i, end) === '"id"') {
        let j = end;
        while (j < text.length && /\s/.test(text[j]!)) j++;
        if (text[j] === ":") {
          j++;
          while (j < text.length && /\s/.test(text[j]!)) j++;
          const match = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(j, j + 400));
          if (match) ids.set(objectIndex, match[0]);
        }
      }
      i = end;
      continue;
    }
    if (ch === "{" || ch === "[") {
      level++;
      if (ch === "{" && level === depth) objectIndex++;
    } else if (ch === "}" || ch === "]") {
      level--;
    }
    i++;
  }
  return ids;
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\\") i += 2;
    else if (ch === '"') return i + 1;
    else i++;
  }
  return i;
}
