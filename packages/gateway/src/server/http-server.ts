import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  encodeError,
  InvalidRequestError,
  isRejected,
  type ParsedBody,
  parseBody,
  type RpcError,
} from "@strata/protocol";
import { isLoopback } from "@strata/protocol/metrics-server";
import type { Logger } from "pino";
import type { GatewayConfig } from "../config.js";
import type { AccessControl, AccessDecision } from "../limits/access-control.js";
import type { GatewayMetrics } from "../metrics.js";
import type { RestHandler } from "../rest/index.js";
import type { FilterQuota } from "../rpc/filter-quota.js";
import type { RpcProxy } from "../rpc/rpc-proxy.js";
import type { AdminApi } from "./admin-api.js";
import { callerOf } from "./caller.js";
import { CachedHealth, type HealthSources } from "./health.js";
import { sendJson, sendPlain } from "./respond.js";

/** What the HTTP server routes to. */
export interface HttpRoutes {
  readonly access: AccessControl;
  readonly proxy: RpcProxy;
  /** Each caller's polling filters, capped. */
  readonly filters: FilterQuota;
  readonly admin: AdminApi | undefined;
  readonly rest: RestHandler;
  readonly health: HealthSources;
  readonly metrics: GatewayMetrics;
  readonly log: Logger;
}

/**
 * The gateway's HTTP side: JSON-RPC on `POST /` and `POST /rpc`, REST under `/v1` and `/docs`, health
 * and metrics, the admin API. Statuses follow DECISIONS.md: 401 bad key, 429 over a limit, 413 body
 * too large, 415 wrong content type, 405 wrong method, 404 unknown path, 204 notifications only.
 */
export class GatewayHttpServer {
  readonly server: Server;
  /** The CORS headers of every JSON-RPC answer. */
  private readonly corsHeaders: Record<string, string>;
  /** Whether this port serves /metrics: only without a metrics port, and only on a loopback address. */
  private readonly metricsHere: boolean;
  private readonly health: CachedHealth;

  constructor(
    private readonly config: GatewayConfig,
    private readonly routes: HttpRoutes,
  ) {
    this.metricsHere = config.metricsPort === undefined && isLoopback(config.addr);
    this.health = new CachedHealth(routes.health, config.healthCacheSeconds * 1000);
    this.corsHeaders = {
      "Access-Control-Allow-Origin": config.corsOrigin,
      "Access-Control-Expose-Headers": EXPOSED_HEADERS,
    };
    this.server = createServer(
      { keepAliveTimeout: 5_000, headersTimeout: 10_000, requestTimeout: 30_000 },
      (req, res) => {
        this.handle(req, res).catch((error: unknown) => {
          routes.log.error({ err: error }, "request failed");
          if (!res.headersSent) sendPlain(res, 500, "internal error");
          else res.destroy();
        });
      },
    );
  }

  /** Listens on the configured address; resolves with the bound URL. */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.config.port, this.config.addr, () => {
        this.server.off("error", reject);
        const { port } = this.server.address() as AddressInfo;
        resolve(`http://${this.config.addr}:${port}`);
      });
    });
  }

  /** Stops accepting connections and closes open ones. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? "/";
    const queryStart = target.indexOf("?");
    const rawPath = queryStart < 0 ? target : target.slice(0, queryStart);
    if ((rawPath === "/" || rawPath === "/rpc") && req.method === "POST") return this.jsonRpc(req, res);
    res.setHeader("Access-Control-Allow-Origin", this.config.corsOrigin);
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
        "Access-Control-Allow-Headers": "Content-Type, X-API-Key, Authorization",
        "Access-Control-Expose-Headers": EXPOSED_HEADERS,
        "Access-Control-Max-Age": "86400",
      });
      res.end();
      return;
    }
    res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    const url = new URL(target, "http://gateway");
    const path = url.pathname;
    if (path === "/" || path === "/rpc") {
      if (req.method !== "POST") return sendPlain(res, 405, "method not allowed", { Allow: "POST, OPTIONS" });
      return this.jsonRpc(req, res);
    }
    if (this.routes.admin?.owns(path)) return this.routes.admin.handle(req, res, path);
    const isRest = path === "/v1" || path.startsWith("/v1/") || path === "/docs" || path.startsWith("/docs/");
    const metricsHere = path === "/metrics" && this.metricsHere;
    const known = isRest || path === "/health" || path === "/health/live" || metricsHere;
    if (!known) return sendPlain(res, 404, "not found");
    if (req.method !== "GET" && req.method !== "HEAD")
      return sendPlain(res, 405, "method not allowed", { Allow: "GET, OPTIONS" });
    if (path === "/health/live") return sendJson(res, 200, '{"status":"ok"}');
    if (path === "/health") {
      const report = await this.health.report();
      return sendJson(res, report.status === "ok" ? 200 : 503, JSON.stringify(report));
    }
    if (metricsHere) {
      const text = await this.routes.metrics.render();
      res.writeHead(200, { "Content-Type": this.routes.metrics.contentType });
      res.end(text);
      return;
    }
    return this.rest(req, res, url);
  }

  private async rest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const started = performance.now();
    const decision = await this.routes.access.authorize(callerOf(req, this.config.trustProxy), 1);
    for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
    const method = `GET ${url.pathname.split("/").slice(0, 3).join("/")}`;
    if (!decision.allowed) {
      this.count(method, decision, decision.error.httpStatus);
      return sendJson(res, decision.error.httpStatus, JSON.stringify({ error: decision.error.toJSON() }));
    }
    await this.routes.rest(req, res, url);
    this.count(method, decision, res.statusCode);
    this.routes.metrics.observeLatency("rest", "http", (performance.now() - started) / 1000);
  }

  /** JSON-RPC over `POST /` and `POST /rpc`, the hot path: reached without parsing the URL. */
  private async jsonRpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    // The CORS headers go out with the status line, in one writeHead (cheaper than setHeader first).
    const cors = this.corsHeaders;
    const type = req.headers["content-type"] ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      return sendPlain(res, 415, "invalid content type, only application/json is supported", cors);
    }
    const text = await this.readBody(req, res);
    if (text === undefined) return;
    const parsed = parseBody(text, this.config.maxBatch);
    const cost = parsed.kind === "batch" ? parsed.entries.length : 1;
    const decision = await this.routes.access.authorize(callerOf(req, this.config.trustProxy), cost);
    const headers = hasAny(decision.headers) ? { ...cors, ...decision.headers } : cors;
    if (!decision.allowed) {
      const status = decision.error.httpStatus;
      this.countCalls(parsed, decision, status);
      return sendJson(res, status, encodeError(singleId(parsed), decision.error), headers);
    }
    const answer = await this.routes.filters.guard(decision.subject, parsed, () =>
      this.routes.proxy.answer(parsed, text),
    );
    if (answer.body === undefined) {
      res.writeHead(204, headers);
      res.end();
    } else {
      sendJson(res, answer.status, answer.body, headers);
    }
    this.countCalls(parsed, decision, answer.body === undefined ? 204 : answer.status);
    const method = parsed.kind === "single" && !isRejected(parsed.entry) ? parsed.entry.method : parsed.kind;
    this.routes.metrics.observeLatency(method, "http", (performance.now() - started) / 1000);
  }

  /** Reads the body within the size limit; answers 413 itself and resolves undefined when it is too large. */
  private readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
    const limit = this.config.maxBodyBytes;
    if (Number(req.headers["content-length"] ?? 0) > limit) {
      this.refuse(req, res, tooLarge(limit));
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let refused = false;
      req.on("data", (chunk: Buffer) => {
        if (refused) return;
        size += chunk.length;
        if (size > limit) {
          refused = true;
          this.refuse(req, res, tooLarge(limit));
          resolve(undefined);
          return;
        }
        chunks.push(chunk);
      });
      req.on("end", () => {
        if (!refused) resolve(Buffer.concat(chunks).toString("utf8"));
      });
      req.on("error", () => {
        if (!refused) resolve(undefined);
      });
    });
  }

  private refuse(req: IncomingMessage, res: ServerResponse, error: RpcError): void {
    sendJson(res, error.httpStatus, encodeError("null", error), { ...this.corsHeaders, Connection: "close" });
    req.resume();
  }

  private countCalls(parsed: ParsedBody, decision: AccessDecision, status: number): void {
    const entries = parsed.kind === "batch" ? parsed.entries : parsed.kind === "single" ? [parsed.entry] : [];
    if (entries.length === 0) this.count("invalid", decision, status);
    for (const entry of entries) this.count(isRejected(entry) ? "invalid" : entry.method, decision, status);
  }

  private count(method: string, decision: AccessDecision, status: number): void {
    this.routes.metrics.countRequest(method, decision.tier ?? "none", status);
  }
}

/** Headers browsers may read from an answer. */
const EXPOSED_HEADERS = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After";

/** The id to answer a refused body with: the request's own for a single call, null otherwise. */
function singleId(parsed: ParsedBody): string {
  return parsed.kind === "single" ? parsed.entry.idJson : "null";
}

function tooLarge(limit: number): RpcError {
  return new InvalidRequestError(`request body too large, limit is ${limit} bytes`, 413);
}

function hasAny(headers: Record<string, string>): boolean {
  for (const _ in headers) return true;
  return false;
}
