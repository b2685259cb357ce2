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
 * The client address behind `trustedHops` proxies (express's `trust proxy` N): each proxy appends the
 * address it received the request from to `X-Forwarded-For`, so the client is the entry `trustedHops`
 * places from the right counting the socket peer. Entries further left are written by the client
 * and never trusted; with fewer entries than hops, the leftmost one is used.
 */
export function clientAddress(peer: string, forwardedFor: string | undefined, trustedHops: number): string {
  if (trustedHops <= 0 || forwardedFor === undefined) return peer;
  const chain = forwardedFor
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  chain.push(peer);
  return chain[Math.max(0, chain.length - 1 - trustedHops)]!;
}

/**
 * The caller of a request: its `X-API-Key` header (or `apiKey` query parameter, for browsers'
 * WebSockets) and its IP address, taken from `X-Forwarded-For` only behind `trustedHops` trusted
 * proxies (see {@link clientAddress}).
 */
export function callerOf(req: IncomingMessage, trustedHops: number): Caller {
  const header = req.headers["x-api-key"];
  const apiKey = (Array.isArray(header) ? header[0] : header) ?? queryApiKey(req.url ?? "/");
  const forwarded = req.headers["x-forwarded-for"];
  const ip = clientAddress(
    req.socket.remoteAddress ?? "unknown",
    Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
    trustedHops,
  );
  return { apiKey: apiKey?.trim(), ip };
}
