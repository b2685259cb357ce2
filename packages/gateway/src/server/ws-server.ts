import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import {
  encodeError,
  encodeResult,
  fitsSendQueue,
  InvalidParamsError,
  isRejected,
  LimitExceededError,
  type ParsedBody,
  parseBody,
  type RejectedRequest,
  type RpcError,
  type RpcRequest,
} from "@strata/protocol";
import { SocketLiveness } from "@strata/protocol/socket-liveness";
import type { Logger } from "pino";
import { type WebSocket, WebSocketServer } from "ws";
import type { GatewayConfig } from "../config.js";
import { InvalidApiKeyError, UpstreamUnavailableError } from "../errors.js";
import type { AccessControl, Caller } from "../limits/access-control.js";
import type { GatewayMetrics, GrowingStructure } from "../metrics.js";
import type { FilterQuota } from "../rpc/filter-quota.js";
import type { RpcProxy } from "../rpc/rpc-proxy.js";
import { toWsUrl, type UpstreamPool } from "../upstream/upstream-pool.js";
import { UpstreamRpcError } from "../upstream/upstream-rpc.js";
import { type UpstreamNotification, UpstreamSocket } from "../upstream/upstream-socket.js";
import { callerOf } from "./caller.js";

/** Close code once the connection's API key is revoked or expired (RFC 6455: policy violation). */
const POLICY_VIOLATION = 1008;
/** Reconnection back-off bounds after an upstream connection is lost. */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2_000;

/** What the WebSocket side uses. */
export interface WsDependencies {
  readonly access: AccessControl;
  readonly proxy: RpcProxy;
  /** Each caller's polling filters, capped. */
  readonly filters: FilterQuota;
  readonly pool: UpstreamPool;
  readonly metrics: GatewayMetrics;
  readonly log: Logger;
}

/**
 * The gateway's WebSocket side on `/` and `/ws`: the upgrade counts as one call of the caller (401
 * for an invalid key, 429 over the limit or over `maxWsConnectionsPerIp` connections of one IP);
 * every message counts against the caller's limits like an HTTP request (notifications to the client
 * do not), and a refused message is answered with the limit error while the socket stays open. The
 * key is checked again with every message and every `keyCacheSeconds` (at least once a second), so a
 * revoked or expired key closes its sockets (1008) within the key cache time. Every socket is pinged
 * every `wsPingIntervalMs` and dropped when it did not answer the previous ping; one without
 * subscriptions that sends nothing for `wsIdleTimeoutMs` is closed (1001). Calls are answered like HTTP ones; subscriptions run on a connection to a node of the
 * client's own and survive the loss of that node: the gateway reconnects (to any healthy node) and
 * re-subscribes, and the client keeps its subscription ids.
 */
export class GatewayWsServer {
  private readonly wss: WebSocketServer;
  private readonly sessions = new Set<ClientSession>();
  private readonly perIp = new Map<string, number>();
  private readonly pinger: NodeJS.Timeout;
  private readonly keyChecker: NodeJS.Timeout;
  private recheckingKeys = false;

  constructor(
    server: Server,
    private readonly config: GatewayConfig,
    private readonly deps: WsDependencies,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: config.maxWsMessageBytes,
      perMessageDeflate: false,
    });
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(req, socket, head).catch((error: unknown) => {
        deps.log.error({ err: error }, "websocket upgrade failed");
        socket.destroy();
      });
    });
    this.pinger = setInterval(() => this.pingAll(), config.wsPingIntervalMs);
    this.pinger.unref();
    this.keyChecker = setInterval(
      () => void this.recheckKeys(),
      Math.max(1_000, config.keyCacheSeconds * 1_000),
    );
    this.keyChecker.unref();
  }

  /** Open client connections, their subscriptions and their send queues, for the metrics. */
  structures(): GrowingStructure[] {
    const sessions = this.sessions;
    return [
      {
        name: "ws_connections",
        unit: "entries",
        bound: this.config.maxWsConnections,
        size: () => sessions.size,
      },
      {
        name: "ws_subscriptions",
        unit: "entries",
        bound: this.config.maxSubscriptionsPerConnection * this.config.maxWsConnections,
        size: () => [...sessions].reduce((sum, s) => sum + s.subscriptionCount, 0),
      },
      {
        name: "ws_send_queue_bytes",
        unit: "bytes",
        bound: this.config.maxWsQueuedBytes,
        size: () => [...sessions].reduce((most, s) => Math.max(most, s.queuedBytes), 0),
      },
    ];
  }

  /** Disconnects every client and its upstream connection. */
  close(): Promise<void> {
    clearInterval(this.pinger);
    clearInterval(this.keyChecker);
    for (const session of this.sessions) session.close();
    for (const ws of this.wss.clients) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "http://gateway");
    if (url.pathname !== "/" && url.pathname !== "/ws") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    const caller = callerOf(req, this.config.trustProxy);
    if (this.refusedOverCaps(caller.ip, socket)) return;
    const decision = await this.deps.access.authorize(caller, 1);
    if (!decision.allowed) {
      const { error } = decision;
      const status =
        error.httpStatus === 401
          ? "401 Unauthorized"
          : error.httpStatus === 429
            ? "429 Too Many Requests"
            : "503 Service Unavailable";
      refuseUpgrade(socket, error, status, decision.headers);
      return;
    }
    // Checked again after the await; counted only once the socket is open (ws completes a valid
    // handshake synchronously, and a failed one never opens a socket, so it holds no place).
    if (this.refusedOverCaps(caller.ip, socket)) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.perIp.set(caller.ip, (this.perIp.get(caller.ip) ?? 0) + 1);
      const session = new ClientSession(ws, caller, this.config, this.deps);
      this.sessions.add(session);
      this.deps.metrics.wsConnections.inc();
      ws.on("close", () => {
        session.close();
        if (this.sessions.delete(session)) {
          this.deps.metrics.wsConnections.dec();
          const left = (this.perIp.get(caller.ip) ?? 1) - 1;
          if (left > 0) this.perIp.set(caller.ip, left);
          else this.perIp.delete(caller.ip);
        }
      });
    });
  }

  /**
   * Refuses the upgrade with 503 when `maxWsConnections` sockets are open, or with 429 when `ip` holds
   * its cap of open sockets; whether it did.
   */
  private refusedOverCaps(ip: string, socket: Duplex): boolean {
    if (this.sessions.size >= this.config.maxWsConnections) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
      return true;
    }
    if ((this.perIp.get(ip) ?? 0) < this.config.maxWsConnectionsPerIp) return false;
    refuseUpgrade(
      socket,
      new LimitExceededError(`too many WebSocket connections from this address`, {
        limit: this.config.maxWsConnectionsPerIp,
      }),
      "429 Too Many Requests",
    );
    return true;
  }

  /** Pings every socket; drops those that did not answer the last ping and closes idle ones. */
  private pingAll(): void {
    const now = performance.now();
    for (const session of this.sessions) session.heartbeat(now);
  }

  /** Closes the sockets whose API key is no longer valid (one round at a time, however slow the database). */
  private async recheckKeys(): Promise<void> {
    if (this.recheckingKeys) return;
    this.recheckingKeys = true;
    try {
      for (const session of this.sessions) {
        if (session.caller.apiKey === undefined) continue;
        const identity = await this.deps.access.identify(session.caller).catch(() => undefined);
        if (identity instanceof InvalidApiKeyError) session.revoked();
      }
    } finally {
      this.recheckingKeys = false;
    }
  }
}

/** Answers an upgrade request with an HTTP refusal carrying the JSON-RPC error. */
function refuseUpgrade(
  socket: Duplex,
  error: RpcError,
  status: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = encodeError("null", error);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

interface Subscription {
  readonly params: readonly unknown[];
  upstreamId: string | undefined;
}

/** One client connection: its calls, its subscriptions and its upstream connection. */
class ClientSession {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly byUpstreamId = new Map<string, string>();
  /** Subscribe calls waiting for the node's answer: they hold a place under the cap. */
  private subscribing = 0;
  private upstream: UpstreamSocket | undefined;
  private connecting: Promise<UpstreamSocket> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly liveness = new SocketLiveness();

  /** Subscriptions this client holds (at most `maxSubscriptionsPerConnection`). */
  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /** Bytes waiting to be written to this client. */
  get queuedBytes(): number {
    return this.ws.bufferedAmount;
  }

  constructor(
    private readonly ws: WebSocket,
    readonly caller: Caller,
    private readonly config: GatewayConfig,
    private readonly deps: WsDependencies,
  ) {
    ws.on("pong", () => this.liveness.pong());
    ws.on("message", (data, isBinary) => {
      const text = this.liveness.message(ws, data, isBinary);
      if (text === undefined) return;
      this.receive(text).then(
        (reply) => {
          if (reply !== undefined) this.send(reply);
        },
        (error: unknown) => {
          deps.log.error({ err: error }, "websocket message failed");
          ws.terminate();
        },
      );
    });
    ws.on("error", () => this.close());
  }

  /** One ping round at `now` (performance.now()): drops a socket that missed the last ping, closes an idle one. */
  heartbeat(now: number): void {
    this.liveness.pingRound(this.ws, now, this.subscriptions.size > 0, this.config.wsIdleTimeoutMs);
  }

  /** The connection's key was revoked or expired: closes it. */
  revoked(): void {
    this.ws.close(POLICY_VIOLATION, "invalid API key");
  }

  /** Ends the session and its upstream connection. */
  close(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.upstream?.close();
    this.upstream = undefined;
  }

  private async receive(text: string): Promise<string | undefined> {
    const started = performance.now();
    const parsed = parseBody(text, this.config.maxBatch);
    const cost = parsed.kind === "batch" ? parsed.entries.length : 1;
    const decision = await this.deps.access.authorize(this.caller, cost);
    this.countCalls(parsed, decision.tier ?? "none", decision.allowed ? 200 : decision.error.httpStatus);
    if (!decision.allowed) {
      const error = decision.error;
      if (error instanceof InvalidApiKeyError) setImmediate(() => this.revoked());
      if (parsed.kind === "batch")
        return `[${parsed.entries.map((e) => encodeError(e.idJson, error)).join(",")}]`;
      return encodeError(parsed.kind === "single" ? parsed.entry.idJson : "null", error);
    }
    const { body: reply } = await this.deps.filters.guard(decision.subject, parsed, async () => {
      if (parsed.kind === "single" && !isSubscriptionCall(parsed.entry))
        return this.deps.proxy.answer(parsed, text);
      if (parsed.kind === "single") return { body: await this.subscriptionCall(parsed.entry as RpcRequest) };
      if (parsed.kind === "invalid") return { body: encodeError("null", parsed.error) };
      return { body: await this.batch(parsed.entries) };
    });
    this.deps.metrics.observeLatency(
      parsed.kind === "single" && !isRejected(parsed.entry) ? parsed.entry.method : parsed.kind,
      "ws",
      (performance.now() - started) / 1000,
    );
    return reply;
  }

  /** Counts each call of a message, as the HTTP transport does, with the status it would have had over HTTP. */
  private countCalls(parsed: ParsedBody, tier: string, status: number): void {
    const entries = parsed.kind === "batch" ? parsed.entries : parsed.kind === "single" ? [parsed.entry] : [];
    if (entries.length === 0) this.deps.metrics.countRequest("invalid", tier, status);
    for (const entry of entries) {
      this.deps.metrics.countRequest(isRejected(entry) ? "invalid" : entry.method, tier, status);
    }
  }

  private async batch(entries: readonly (RpcRequest | RejectedRequest)[]): Promise<string | undefined> {
    const plain = entries.filter((e) => !isSubscriptionCall(e));
    const plainAnswers = this.deps.proxy.answerEntries(plain);
    const answers = await Promise.all(
      entries.map(async (entry) => {
        if (isSubscriptionCall(entry)) return this.subscriptionCall(entry as RpcRequest);
        return (await plainAnswers)[plain.indexOf(entry)];
      }),
    );
    const present = answers.filter((a): a is string => a !== undefined);
    return present.length > 0 ? `[${present.join(",")}]` : undefined;
  }

  private async subscriptionCall(entry: RpcRequest): Promise<string | undefined> {
    let reply: string;
    if (entry.method === "eth_subscribe") {
      reply = await this.subscribe(entry);
    } else {
      const id = entry.params[0];
      reply =
        typeof id === "string"
          ? encodeResult(entry.idJson, String(this.unsubscribe(id)))
          : encodeError(entry.idJson, new InvalidParamsError("missing value for required argument 0"));
    }
    return entry.notification ? undefined : reply;
  }

  private async subscribe(entry: RpcRequest): Promise<string> {
    const max = this.config.maxSubscriptionsPerConnection;
    if (this.subscriptions.size + this.subscribing >= max) {
      return encodeError(
        entry.idJson,
        new LimitExceededError("too many subscriptions on this connection", {
          limit: "subscriptionsPerConnection",
          max,
        }),
      );
    }
    this.subscribing++;
    const answer = await this.connectUpstream()
      .then((upstream) => upstream.call("eth_subscribe", entry.params))
      .catch(() => undefined)
      .finally(() => {
        this.subscribing--;
      });
    if (answer === undefined) return encodeError(entry.idJson, new UpstreamUnavailableError());
    if (answer.error !== undefined) return encodeError(entry.idJson, new UpstreamRpcError(answer.error));
    const id = `0x${randomBytes(16).toString("hex")}`;
    const upstreamId = String(answer.result);
    this.subscriptions.set(id, { params: entry.params, upstreamId });
    this.byUpstreamId.set(upstreamId, id);
    return encodeResult(entry.idJson, JSON.stringify(id));
  }

  private unsubscribe(id: string): boolean {
    const subscription = this.subscriptions.get(id);
    if (subscription === undefined) return false;
    this.subscriptions.delete(id);
    if (subscription.upstreamId !== undefined) {
      this.byUpstreamId.delete(subscription.upstreamId);
      void this.upstream?.call("eth_unsubscribe", [subscription.upstreamId]);
    }
    return true;
  }

  /** The open upstream connection, or a new one to the first node that accepts. */
  private connectUpstream(): Promise<UpstreamSocket> {
    if (this.upstream !== undefined) return Promise.resolve(this.upstream);
    this.connecting ??= (async () => {
      let lastError: unknown = new UpstreamUnavailableError();
      for (const url of this.deps.pool.candidateUrls()) {
        try {
          const socket = await UpstreamSocket.connect(toWsUrl(url), {
            onNotification: (n) => this.notify(n),
            onLost: () => this.upstreamLost(),
          });
          if (this.closed) {
            socket.close();
            throw new UpstreamUnavailableError("client disconnected");
          }
          this.upstream = socket;
          return socket;
        } catch (error) {
          lastError = error;
        }
      }
      throw lastError;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private notify(notification: UpstreamNotification): void {
    const id = this.byUpstreamId.get(notification.subscription);
    if (id === undefined) return;
    this.send(
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${JSON.stringify(notification.result)}}}`,
    );
  }

  private upstreamLost(): void {
    this.upstream = undefined;
    this.byUpstreamId.clear();
    for (const subscription of this.subscriptions.values()) subscription.upstreamId = undefined;
    if (!this.closed && this.subscriptions.size > 0) this.resubscribe(RECONNECT_MIN_MS);
  }

  /** Reconnects after `delayMs` and re-creates every subscription under the client's ids. */
  private resubscribe(delayMs: number): void {
    this.reconnectTimer = setTimeout(async () => {
      if (this.closed) return;
      let upstream: UpstreamSocket;
      try {
        upstream = await this.connectUpstream();
      } catch {
        this.resubscribe(Math.min(delayMs * 2, RECONNECT_MAX_MS));
        return;
      }
      for (const [id, subscription] of this.subscriptions) {
        if (subscription.upstreamId !== undefined) continue;
        const answer = await upstream.call("eth_subscribe", subscription.params);
        if (answer.error !== undefined || this.subscriptions.get(id) !== subscription) continue;
        subscription.upstreamId = String(answer.result);
        this.byUpstreamId.set(subscription.upstreamId, id);
      }
      this.deps.log.info(
        { subscriptions: this.subscriptions.size },
        "subscriptions restored on a new upstream connection",
      );
    }, delayMs);
  }

  private send(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (!fitsSendQueue(this.ws.bufferedAmount, text, this.config.maxWsQueuedBytes)) {
      this.ws.terminate();
      return;
    }
    this.ws.send(text);
  }
}

function isSubscriptionCall(entry: RpcRequest | RejectedRequest): boolean {
  return !isRejected(entry) && (entry.method === "eth_subscribe" || entry.method === "eth_unsubscribe");
}
