import { setMaxListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  encodeError,
  InvalidRequestError,
  LimitExceededError,
  parseBody,
  type RpcError,
} from "@strata/protocol";
import type { MetricsEndpoint } from "@strata/protocol/metrics-server";
import type { NodeConfig } from "../../config/node-config.js";
import type { DispatchResult, RpcDispatcher } from "../dispatcher.js";
import { andThen, type MaybePromise } from "../maybe-promise.js";
import type { RpcContext } from "../registry.js";
import { authorize, bodyRefusal, callerOf, costOf, type RequestGate } from "./access.js";

export type { MetricsEndpoint };

/** HTTP transport settings. */
export type HttpOptions = NodeConfig["rpc"];

/**
 * The JSON-RPC HTTP transport: POST on `/`, statuses and limits of DECISIONS.md (413 body too large,
 * 415 wrong content type, 405 wrong method, 404 wrong path, 204 for notification-only batches), CORS.
 * With a {@link RequestGate}, each body's calls are charged to its caller before they are answered.
 */
export class HttpRpcServer {
  readonly server: Server;

  constructor(
    private readonly dispatcher: RpcDispatcher,
    private readonly options: HttpOptions,
    /** Served on `GET /metrics` of this port; absent: 404 (metrics on their own port, or off). */
    private readonly metrics?: MetricsEndpoint,
    /** API keys and rate limits; without one every request is answered (the default). */
    private readonly gate?: RequestGate,
    /** What `GET /health` answers (JSON): head, peers, sync state. */
    private readonly health?: () => unknown,
  ) {
    this.server = createServer(
      { keepAliveTimeout: 5_000, headersTimeout: 10_000, requestTimeout: 30_000 },
      (req, res) => this.handle(req, res),
    );
  }

  /** Listens on the configured address; resolves with the bound URL. */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port, this.options.addr, () => {
        const { port } = this.server.address() as AddressInfo;
        resolve(`http://${this.options.addr}:${port}`);
      });
    });
  }

  /** Stops accepting connections and closes idle ones. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // Every answer carries the CORS origin, written with the status line (see `json` and `plain`).
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Origin": this.options.corsOrigin,
        "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
        "Access-Control-Allow-Headers": "Content-Type, X-API-Key, Authorization",
        "Access-Control-Max-Age": "86400",
      });
      res.end();
      return;
    }
    const url = req.url ?? "/";
    const path = url === "/" ? url : url.split("?")[0];
    if (path === "/metrics" && this.metrics !== undefined && req.method === "GET") {
      this.serveMetrics(res, this.metrics);
      return;
    }
    if (path === "/health" && this.health !== undefined && req.method === "GET") {
      res.writeHead(200, {
        "Content-Type": "application/json",
        "Access-Control-Allow-Origin": this.options.corsOrigin,
      });
      res.end(JSON.stringify(this.health()));
      return;
    }
    if (path !== "/") {
      this.plain(res, 404, "not found");
      return;
    }
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST, OPTIONS");
      this.plain(res, 405, "method not allowed");
      return;
    }
    const type = req.headers["content-type"] ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      this.plain(res, 415, "invalid content type, only application/json is supported");
      return;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > this.options.maxBodyBytes) {
      this.refuse(req, res, tooLarge(this.options.maxBodyBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > this.options.maxBodyBytes) {
        refused = true;
        this.refuse(req, res, tooLarge(this.options.maxBodyBytes));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      const context = new HttpRequestContext(res);
      if (this.gate === undefined) this.respond(res, this.dispatcher.dispatch(text, context));
      else this.gated(req, res, text, this.gate, context);
    });
  }

  /** Charges the body's calls to its caller, then answers it or sends the gate's refusal. */
  private gated(
    req: IncomingMessage,
    res: ServerResponse,
    text: string,
    gate: RequestGate,
    context: RpcContext,
  ): void {
    const parsed = parseBody(text, this.options.maxBatch);
    void authorize(gate, callerOf(req), costOf(parsed)).then((decision) => {
      res.setHeader("Access-Control-Expose-Headers", EXPOSED_LIMIT_HEADERS);
      for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
      if (decision.allowed) this.respond(res, this.dispatcher.dispatchParsed(parsed, context));
      else this.json(res, decision.error.httpStatus, bodyRefusal(parsed, decision.error));
    });
  }

  private respond(res: ServerResponse, answer: MaybePromise<DispatchResult>): void {
    andThen(
      answer,
      (result) => this.send(res, result),
      () => this.plain(res, 500, "internal error"),
    );
  }

  private send(res: ServerResponse, { body, status }: DispatchResult): void {
    if (body === undefined) {
      res.writeHead(204, { "Access-Control-Allow-Origin": this.options.corsOrigin });
      res.end();
      return;
    }
    // Large answers are encoded once, then measured and sent as bytes.
    const payload = body.length > LARGE_RESPONSE_CHARS ? Buffer.from(body) : body;
    const length = byteLength(payload);
    if (length > this.options.maxResponseBytes) {
      const error = new LimitExceededError(`response exceeds ${this.options.maxResponseBytes} bytes`);
      this.json(res, 200, encodeError("null", error));
      return;
    }
    this.json(res, status, payload, length);
  }

  private serveMetrics(res: ServerResponse, metrics: MetricsEndpoint): void {
    metrics.render().then(
      (text) => {
        res.writeHead(200, {
          "Access-Control-Allow-Origin": this.options.corsOrigin,
          "Content-Type": metrics.contentType,
        });
        res.end(text);
      },
      () => this.plain(res, 500, "internal error"),
    );
  }

  private json(res: ServerResponse, status: number, body: string | Buffer, length = byteLength(body)): void {
    res.writeHead(status, {
      "Access-Control-Allow-Origin": this.options.corsOrigin,
      "Content-Type": "application/json",
      "Content-Length": length,
    });
    res.end(body);
  }

  private plain(res: ServerResponse, status: number, message: string): void {
    res.writeHead(status, {
      "Access-Control-Allow-Origin": this.options.corsOrigin,
      "Content-Type": "text/plain",
    });
    res.end(message);
  }

  private refuse(req: IncomingMessage, res: ServerResponse, error: RpcError): void {
    res.setHeader("Connection", "close");
    this.json(res, error.httpStatus, encodeError("null", error));
    req.resume();
  }
}

/**
 * The context of one HTTP request. Its signal, made when a method first asks for it (most never
 * do), is aborted if the response's connection closes before the answer is written.
 */
class HttpRequestContext implements RpcContext {
  #controller: AbortController | undefined;

  constructor(private readonly res: ServerResponse) {}

  get caller(): string {
    return `ip:${this.res.req.socket.remoteAddress ?? "unknown"}`;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      // The calls of a batch share it, each listening while it runs on a worker.
      setMaxListeners(0, controller.signal);
      this.#controller = controller;
      const { res } = this;
      if (res.destroyed) controller.abort();
      else
        res.once("close", () => {
          if (!res.writableFinished) controller.abort();
        });
    }
    return this.#controller.signal;
  }
}

/** The gate's headers, readable by browser scripts on another origin. */
const EXPOSED_LIMIT_HEADERS = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After";

/** Answers longer than this many characters are encoded to bytes once instead of measured and re-encoded. */
const LARGE_RESPONSE_CHARS = 64 * 1024;

function byteLength(body: string | Buffer): number {
  return typeof body === "string" ? Buffer.byteLength(body) : body.length;
}

function tooLarge(limit: number): RpcError {
  return new InvalidRequestError(`request body too large, limit is ${limit} bytes`, 413);
}
