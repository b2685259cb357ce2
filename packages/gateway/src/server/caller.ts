import type { IncomingMessage } from "node:http";
import type { Caller } from "../limits/access-control.js";

/**
 * The caller of a request: its `X-API-Key` header (or `apiKey` query parameter, for browsers'
 * WebSockets) and its IP address, taken from `X-Forwarded-For` only when the gateway sits behind a
 * trusted proxy.
 */
export function callerOf(req: IncomingMessage, url: URL, trustProxy: boolean): Caller {
  const header = req.headers["x-api-key"];
  const apiKey = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get("apiKey") ?? undefined;
  let ip = req.socket.remoteAddress ?? "unknown";
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first) ip = first;
  }
  return { apiKey: apiKey?.trim(), ip };
}
