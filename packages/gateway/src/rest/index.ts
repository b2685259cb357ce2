import type { IncomingMessage, ServerResponse } from "node:http";
import type { Database } from "@strata/db";
import type { RestContext, RestRpc } from "./context.js";
import { DOCS_HTML } from "./docs-page.js";
import { OPENAPI_DOCUMENT } from "./openapi.js";
import { BadRequestError, NotFoundError, RestError } from "./rest-errors.js";
import { addressRoutes } from "./routes/addresses.js";
import { blockRoutes } from "./routes/blocks.js";
import { chainRoutes } from "./routes/chain.js";
import { moduleRoutes } from "./routes/modules.js";
import type { Route } from "./routes/route.js";
import { tokenRoutes } from "./routes/tokens.js";
import { transactionRoutes } from "./routes/transactions.js";

export type { RestRpc } from "./context.js";
export { OPENAPI_DOCUMENT } from "./openapi.js";
export { BadRequestError, NotFoundError, RestError, UnavailableError } from "./rest-errors.js";

/** What the REST API is built from. */
export interface RestApiOptions {
  /** The indexer's database, when one is configured (routes reading the index answer 503 without it). */
  readonly database: Database | undefined;
  /** Live node reads (balances, validators, staking, predictions); routes needing it answer 503 without it. */
  readonly rpc?: RestRpc;
  /** Told about unexpected errors (answered 500 `internal`), e.g. to log them. */
  readonly onError?: (error: unknown, url: URL) => void;
}

/** Answers one GET under `/v1` or `/docs`; `url` is the parsed request URL. */
export type RestHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

const ROUTES: readonly Route[] = [
  ...chainRoutes,
  ...blockRoutes,
  ...transactionRoutes,
  ...addressRoutes,
  ...tokenRoutes,
  ...moduleRoutes,
];
const OPENAPI_JSON = JSON.stringify(OPENAPI_DOCUMENT);

function send(res: ServerResponse, status: number, type: string, body: string, head: boolean): void {
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/**
 * The REST API mounted by the gateway: `GET /v1/*` (JSON read from the indexer's database, with a few
 * live reads from the node), `/v1/openapi.json` and `/docs`. Bad input answers 400, unknown resources
 * 404, a missing index or node 503, always as `{error: {code, message}}`.
 */
export function createRestApi(options: RestApiOptions): RestHandler {
  const ctx: RestContext = { db: options.database, rpc: options.rpc };
  return async (req, res, url) => {
    const head = req.method === "HEAD";
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname;
    if (path === "/docs") return send(res, 200, "text/html; charset=utf-8", DOCS_HTML, head);
    if (path === "/v1/openapi.json") return send(res, 200, "application/json", OPENAPI_JSON, head);
    try {
      // PostgreSQL refuses NUL in text: a query argument carrying one would otherwise fail its query.
      for (const [name, value] of url.searchParams) {
        if (value.includes("\u0000")) throw new BadRequestError(`${name}: must not contain NUL`);
      }
      for (const route of ROUTES) {
        const match = route.pattern.exec(path);
        if (!match) continue;
        const result = await route.handle(ctx, url, match.slice(1));
        return send(res, 200, "application/json", JSON.stringify(result), head);
      }
      throw new NotFoundError(`no such resource ${url.pathname}`);
    } catch (error) {
      if (!(error instanceof RestError)) options.onError?.(error, url);
      const known =
        error instanceof RestError
          ? error
          : new RestError(500, "internal", "internal error while reading the index");
      return send(
        res,
        known.status,
        "application/json",
        JSON.stringify({ error: { code: known.code, message: known.message } }),
        head,
      );
    }
  };
}
