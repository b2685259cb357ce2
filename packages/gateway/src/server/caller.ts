import type { IncomingMessage } from "node:http";
import type { Caller } from "../limits/access-control.js";

/** The last query string read and the key it carried: consecutive requests usually share both. */
let lastQuery = "";
let lastQueryKey: string | undefined;

/** The `apiKey` query parameter of a request target (`/rpc?apiKey=…`), if any. */
function queryApiKey(target: string): string | undefined {
  const start = target.indexOf("?");
  if (start < 0) return undefined;
  const query = target.slice(start + 1);
  if (query !== lastQuery) {
    lastQueryKey = new URLSearchParams(query).get("apiKey") ?? undefined;
    lastQuery = query;
  }
  return lastQueryKey;
}

/**
 * The caller of a request: its `X-API-Key` header (or `apiKey` query parameter, for browsers'
 * WebSockets) and its IP address, taken from `X-Forwarded-For` only when the gateway sits behind a
 * trusted proxy.
 */
export function callerOf(req: IncomingMessage, trustProxy: boolean): Caller {
  const header = req.headers["x-api-key"];
  const apiKey = (Array.isArray(header) ? header[0] : header) ?? queryApiKey(req.url ?? "/");
  let ip = req.socket.remoteAddress ?? "unknown";
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first) ip = first;
  }
  return { apiKey: apiKey?.trim(), ip };
}
