import { setMaxListeners } from "node:events";
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { encodeError, fitsSendQueue, LimitExceededError, parseBody, type RpcError } from "@strata/protocol";
import { SocketLiveness } from "@strata/protocol/socket-liveness";
import { type WebSocket, WebSocketServer } from "ws";
import type { NodeConfig } from "../../config/node-config.js";
import type { DispatchResult, RpcDispatcher } from "../dispatcher.js";
import { andThen } from "../maybe-promise.js";
import type { RpcContext } from "../registry.js";
import type { SubscriptionManager } from "../subscriptions/subscription-manager.js";
import type { SubscriptionSink } from "../subscriptions/subscription-sink.js";
import { authorize, type Caller, callerOf, costOf, messageRefusal, type RequestGate } from "./access.js";

/** A connection whose messages a gate charges to the caller that opened it. */
interface ChargedCaller {
  readonly gate: RequestGate;
  readonly caller: Caller;
}

/** One open connection: its notification sink and its liveness. */
interface Client {
  readonly sink: SubscriptionSink;
  /** The remote address its connection counts against. */
  readonly ip: string;
  readonly liveness: SocketLiveness;
}

/**
 * The JSON-RPC WebSocket transport, on the HTTP server's port (upgrade on `/`): text frames carry
 * requests and batches exactly as over HTTP, plus `eth_subscribe` notifications. Binary frames close
 * the connection (1003); a client that does not read is disconnected before more than
 * `maxWsQueuedBytes` wait for it, so one slow reader never holds memory or slows the others. With a {@link RequestGate},
 * an invalid API key is refused at the upgrade (401) and every message's calls are charged to its
 * caller; a refused message is answered with the error and the socket stays open. Notifications are
 * never charged. One remote address opens at most `maxWsConnectionsPerIp` connections (429 beyond, as
 * the gateway answers); every socket is pinged every `wsPingIntervalMs` and dropped when it did not
 * answer the previous ping, and one without subscriptions that sends nothing for `wsIdleTimeoutMs` is
 * closed (1001).
 */
export class WebSocketRpcServer {
  private readonly wss: WebSocketServer;
  private readonly clients = new Map<WebSocket, Client>();
  private readonly perIp = new Map<string, number>();
  private readonly pinger: NodeJS.Timeout | undefined;

  constructor(
    server: Server,
    private readonly dispatcher: RpcDispatcher,
    private readonly subscriptions: SubscriptionManager,
    private readonly options: NodeConfig["rpc"],
    /** API keys and rate limits; without one every message is answered (the default). */
    private readonly gate?: RequestGate,
  ) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxWsMessageBytes,
      perMessageDeflate: false,
    });
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(req, socket, head),
    );
    if (Number.isFinite(options.wsPingIntervalMs)) {
      this.pinger = setInterval(() => this.pingAll(), options.wsPingIntervalMs);
      this.pinger.unref();
    }
  }

  /** Open connections. */
  get connections(): number {
    return this.clients.size;
  }

  /** The most bytes waiting to be written to any one client (at most `maxWsQueuedBytes`, see {@link createSink}). */
  get largestSendQueue(): number {
    let largest = 0;
    for (const ws of this.clients.keys()) largest = Math.max(largest, ws.bufferedAmount);
    return largest;
  }

  /** Disconnects every client. */
  close(): Promise<void> {
    clearInterval(this.pinger);
    for (const ws of this.clients.keys()) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    const ip = req.socket.remoteAddress ?? "unknown";
    if (this.refusedOverCaps(ip, socket)) return;
    if (this.gate === undefined) {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, undefined, ip));
      return;
    }
    const caller = callerOf(req);
    const gate = this.gate;
    // The upgrade counts as one call of the caller: opening sockets is not free.
    void authorize(gate, caller, 1).then((decision) => {
      if (!decision.allowed) {
        refuseUpgrade(socket, decision.error, decision.headers);
        return;
      }
      // Other upgrades may have been accepted while this one was authorized.
      if (this.refusedOverCaps(ip, socket)) return;
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, { gate, caller }, ip));
    });
  }

  /**
   * Refuses the upgrade when the node holds `maxWsConnections` connections (503) or `ip` holds
   * `maxWsConnectionsPerIp` (429); whether it did.
   */
  private refusedOverCaps(ip: string, socket: Duplex): boolean {
    if (this.clients.size >= this.options.maxWsConnections) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
      return true;
    }
    const max = this.options.maxWsConnectionsPerIp;
    if (max === 0 || (this.perIp.get(ip) ?? 0) < max) return false;
    refuseUpgrade(
      socket,
      new LimitExceededError("too many WebSocket connections from this address", { limit: max }, 429),
    );
    return true;
  }

  /** Pings every socket; drops those that did not answer the last ping and closes idle ones. */
  private pingAll(): void {
    const now = performance.now();
    for (const [ws, client] of this.clients)
      client.liveness.pingRound(ws, now, client.sink.subscriptions.size > 0, this.options.wsIdleTimeoutMs);
  }

  /** `charged` is set when a gate charges this connection's messages to its caller. */
  private accept(ws: WebSocket, charged: ChargedCaller | undefined, ip: string): void {
    const sink = createSink(ws, this.options.maxWsQueuedBytes);
    const client: Client = { sink, ip, liveness: new SocketLiveness() };
    this.clients.set(ws, client);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    // Calls still running when the connection goes are stopped.
    const open = new AbortController();
    // Each call running on a worker listens on it while in flight.
    setMaxListeners(0, open.signal);
    const context: RpcContext = {
      connection: sink,
      signal: open.signal,
      caller: `ip:${ip}`,
    };
    ws.on("pong", () => client.liveness.pong());
    ws.on("message", (data, isBinary) => {
      const text = client.liveness.message(ws, data, isBinary);
      if (text === undefined) return;
      const answer =
        charged === undefined ? this.dispatcher.dispatch(text, context) : this.gated(text, context, charged);
      andThen(
        answer,
        ({ body }) => {
          if (body !== undefined) sink.send(body);
        },
        () => ws.terminate(),
      );
    });
    ws.on("close", () => {
      open.abort();
      this.drop(ws, sink);
    });
    ws.on("error", () => {
      open.abort();
      this.drop(ws, sink);
    });
  }

  /** Charges a message's calls to the connection's caller, then answers it or returns the refusal. */
  private async gated(text: string, context: RpcContext, charged: ChargedCaller): Promise<DispatchResult> {
    const parsed = parseBody(text, this.options.maxBatch);
    const decision = await authorize(charged.gate, charged.caller, costOf(parsed));
    if (decision.allowed) return this.dispatcher.dispatchParsed(parsed, context);
    return { body: messageRefusal(parsed, decision.error), status: decision.error.httpStatus };
  }

  private drop(ws: WebSocket, sink: SubscriptionSink): void {
    const client = this.clients.get(ws);
    if (client === undefined) return;
    this.clients.delete(ws);
    const left = (this.perIp.get(client.ip) ?? 1) - 1;
    if (left > 0) this.perIp.set(client.ip, left);
    else this.perIp.delete(client.ip);
    this.subscriptions.dropConnection(sink);
  }
}

/** Answers an upgrade request with an HTTP refusal carrying the JSON-RPC error (its `httpStatus`). */
function refuseUpgrade(
  socket: Duplex,
  error: RpcError,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = encodeError("null", error);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${error.httpStatus} ${STATUS_CODES[error.httpStatus]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

/** The parts of a WebSocket a {@link SubscriptionSink} uses. */
export type SinkSocket = Pick<WebSocket, "readyState" | "OPEN" | "bufferedAmount" | "send" | "terminate">;

/**
 * Wraps a socket as a notification sink that refuses to buffer without bound: a message that would
 * take what waits to be written to a client that does not read past `maxQueuedBytes` disconnects the
 * client instead ({@link fitsSendQueue}).
 */
export function createSink(ws: SinkSocket, maxQueuedBytes: number): SubscriptionSink {
  return {
    subscriptions: new Set(),
    send(text: string): boolean {
      if (ws.readyState !== ws.OPEN) return false;
      if (!fitsSendQueue(ws.bufferedAmount, text, maxQueuedBytes)) {
        ws.terminate();
        return false;
      }
      ws.send(text);
      return true;
    },
  };
}
