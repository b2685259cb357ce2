import { setMaxListeners } from "node:events";
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { encodeError, parseBody } from "@strata/protocol";
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

/** Close code for a binary frame (RFC 6455: unsupported data). */
const UNSUPPORTED_DATA = 1003;

/**
 * The JSON-RPC WebSocket transport, on the HTTP server's port (upgrade on `/`): text frames carry
 * requests and batches exactly as over HTTP, plus `eth_subscribe` notifications. Binary frames close
 * the connection (1003); a client that does not read and has more than `maxWsQueuedBytes` waiting is
 * disconnected, so one slow reader never holds memory or slows the others. With a {@link RequestGate},
 * an invalid API key is refused at the upgrade (401) and every message's calls are charged to its
 * caller; a refused message is answered with the error and the socket stays open. Notifications are
 * never charged.
 */
export class WebSocketRpcServer {
  private readonly wss: WebSocketServer;
  private readonly sinks = new Map<WebSocket, SubscriptionSink>();

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
  }

  /** Open connections. */
  get connections(): number {
    return this.sinks.size;
  }

  /** The most bytes waiting to be written to any one client (over `maxWsQueuedBytes` it is disconnected). */
  get largestSendQueue(): number {
    let largest = 0;
    for (const ws of this.sinks.keys()) largest = Math.max(largest, ws.bufferedAmount);
    return largest;
  }

  /** Disconnects every client. */
  close(): Promise<void> {
    for (const ws of this.sinks.keys()) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    if (this.sinks.size >= this.options.maxWsConnections) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n");
      return;
    }
    if (this.gate === undefined) {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, undefined, req));
      return;
    }
    const caller = callerOf(req);
    const gate = this.gate;
    // The upgrade counts as one call of the caller: opening sockets is not free.
    void authorize(gate, caller, 1).then((decision) => {
      if (decision.allowed) {
        this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, { gate, caller }, req));
        return;
      }
      const { error } = decision;
      const body = encodeError("null", error);
      const headers = Object.entries(decision.headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      socket.end(
        `HTTP/1.1 ${error.httpStatus} ${STATUS_CODES[error.httpStatus]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
      );
    });
  }

  /** `charged` is set when a gate charges this connection's messages to its caller. */
  private accept(ws: WebSocket, charged: ChargedCaller | undefined, req: IncomingMessage): void {
    const sink = createSink(ws, this.options.maxWsQueuedBytes);
    this.sinks.set(ws, sink);
    // Calls still running when the connection goes are stopped.
    const open = new AbortController();
    // Each call running on a worker listens on it while in flight.
    setMaxListeners(0, open.signal);
    const context: RpcContext = {
      connection: sink,
      signal: open.signal,
      caller: `ip:${req.socket.remoteAddress ?? "unknown"}`,
    };
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        ws.close(UNSUPPORTED_DATA, "binary frames are not supported");
        return;
      }
      const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : data.toString("utf8");
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
    if (!this.sinks.delete(ws)) return;
    this.subscriptions.dropConnection(sink);
  }
}

/** The parts of a WebSocket a {@link SubscriptionSink} uses. */
export type SinkSocket = Pick<WebSocket, "readyState" | "OPEN" | "bufferedAmount" | "send" | "terminate">;

/**
 * Wraps a socket as a notification sink that refuses to buffer without bound: once more than
 * `maxQueuedBytes` wait to be written to a client that does not read, the client is disconnected.
 */
export function createSink(ws: SinkSocket, maxQueuedBytes: number): SubscriptionSink {
  return {
    subscriptions: new Set(),
    send(text: string): boolean {
      if (ws.readyState !== ws.OPEN) return false;
      if (ws.bufferedAmount > maxQueuedBytes) {
        ws.terminate();
        return false;
      }
      ws.send(text);
      return true;
    },
  };
}
