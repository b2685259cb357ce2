import type { IncomingMessage, ServerResponse } from "node:http";
import type { Database } from "@strata/db";
import type { RestContext, RestRpc } from "./context.js";
import { DOCS_HTML } from "./docs-page.js";
import { OPENAPI_DOCUMENT } from "./openapi.js";
import { parseParams, pathSegment } from "./params.js";
import { BadRequestError, NotFoundError, RestError } from "./rest-errors.js";
import { REST_ROUTES } from "./route-table.js";
import type { RestRoute } from "./routes/route.js";

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

const ROUTES: readonly RestRoute[] = REST_ROUTES;
const OPENAPI_JSON = JSON.stringify(OPENAPI_DOCUMENT);

function send(res: ServerResponse, status: number, type: string, body: string, head: boolean): void {
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/** Runs the route matching `path`: its path parameters and query arguments through its schemas, then its handler. */
async function answer(ctx: RestContext, path: string, url: URL): Promise<unknown> {
  for (const route of ROUTES) {
    const segments = route.match(path);
    if (segments === undefined) continue;
    const params = parseParams(
      route.params,
      Object.fromEntries(Object.entries(segments).map(([name, raw]) => [name, pathSegment(raw, name)])),
    );
    // An empty argument (`?cursor=`) counts as absent.
    const query = parseParams(
      route.query,
      Object.fromEntries(
        Object.keys(route.query.shape).map((name) => [name, url.searchParams.get(name) || undefined]),
      ),
    );
    return route.handle(ctx, { params, query });
  }
  throw new NotFoundError(`no such resource ${url.pathname}`);
}

/**
 * The REST API mounted by the gateway: `GET /v1/*` (JSON read from the indexer's database, with a few
 * live reads from the node) as the route table describes it, `/v1/openapi.json` and `/docs`. Bad input
 * answers 400, unknown resources 404, a missing index or node 503, always as `{error: {code, message}}`.
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
      const result = await answer(ctx, path, url);
      return send(res, 200, "application/json", JSON.stringify(result), head);
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
