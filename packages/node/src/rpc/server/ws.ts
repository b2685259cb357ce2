import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { NodeConfig } from "../../config/node-config.js";
import type { RpcDispatcher } from "../dispatcher.js";
import type { SubscriptionManager } from "../subscriptions/subscription-manager.js";
import type { SubscriptionSink } from "../subscriptions/subscription-sink.js";

/** Close code for a binary frame (RFC 6455: unsupported data). */
const UNSUPPORTED_DATA = 1003;

/**
 * The JSON-RPC WebSocket transport, on the HTTP server's port (upgrade on `/`): text frames carry
 * requests and batches exactly as over HTTP, plus `eth_subscribe` notifications. Binary frames close
 * the connection (1003); a client that does not read and has more than `maxWsQueuedBytes` waiting is
 * disconnected, so one slow reader never holds memory or slows the others.
 */
export class WebSocketRpcServer {
  private readonly wss: WebSocketServer;
  private readonly sinks = new Map<WebSocket, SubscriptionSink>();

  constructor(
    server: Server,
    private readonly dispatcher: RpcDispatcher,
    private readonly subscriptions: SubscriptionManager,
    private readonly options: NodeConfig["rpc"],
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
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    const sink = createSink(ws, this.options.maxWsQueuedBytes);
    this.sinks.set(ws, sink);
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        ws.close(UNSUPPORTED_DATA, "binary frames are not supported");
        return;
      }
      const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : data.toString("utf8");
      this.dispatcher.dispatch(text, { connection: sink }).then(
        ({ body }) => {
          if (body !== undefined) sink.send(body);
        },
        () => ws.terminate(),
      );
    });
    ws.on("close", () => this.drop(ws, sink));
    ws.on("error", () => this.drop(ws, sink));
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
