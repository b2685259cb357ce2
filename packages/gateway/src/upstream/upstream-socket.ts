import WebSocket from "ws";
import type { AnswerObject } from "./upstream-rpc.js";

/** A subscription notification as a node sends it. */
export interface UpstreamNotification {
  readonly subscription: string;
  readonly result: unknown;
}

/** Events of an {@link UpstreamSocket}. */
export interface UpstreamSocketHandlers {
  onNotification(notification: UpstreamNotification): void;
  /** The connection ended without `close()` being called. */
  onLost(): void;
}

/** A connection attempt gives up after this long. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A call over the socket gives up after this long. */
const CALL_TIMEOUT_MS = 10_000;

/**
 * One WebSocket connection from the gateway to a node, carrying one client's subscriptions:
 * `call` sends a request and resolves with the node's answer object; notifications and the loss of
 * the connection are reported to the handlers.
 */
export class UpstreamSocket {
  private readonly pending = new Map<number, (answer: AnswerObject) => void>();
  private nextId = 1;
  private closedByUs = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly handlers: UpstreamSocketHandlers,
  ) {
    ws.on("message", (data) => this.receive(String(data)));
    ws.on("close", () => this.ended());
    ws.on("error", () => this.ended());
  }

  /** Connects to `url`; rejects when the node does not accept within a few seconds. */
  static connect(url: string, handlers: UpstreamSocketHandlers): Promise<UpstreamSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: CONNECT_TIMEOUT_MS });
      const fail = (error: Error) => {
        ws.removeAllListeners();
        ws.on("error", () => {});
        ws.terminate();
        reject(error);
      };
      ws.once("error", fail);
      ws.once("open", () => {
        ws.off("error", fail);
        resolve(new UpstreamSocket(ws, handlers));
      });
    });
  }

  /** Sends one call and resolves with the node's answer; an error answer when the connection is lost. */
  call(method: string, params: readonly unknown[]): Promise<AnswerObject> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => settle({ error: { code: -32002, message: "upstream node did not answer" } }),
        CALL_TIMEOUT_MS,
      );
      const settle = (answer: AnswerObject) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(answer);
      };
      this.pending.set(id, settle);
      if (this.ws.readyState !== WebSocket.OPEN) {
        settle({ error: { code: -32002, message: "upstream node is not connected" } });
        return;
      }
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** Closes the connection without reporting it as lost. */
  close(): void {
    this.closedByUs = true;
    this.ws.terminate();
  }

  private receive(text: string): void {
    let message: { id?: unknown; method?: unknown; params?: UpstreamNotification } & AnswerObject;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.method === "eth_subscription" && message.params !== undefined) {
      this.handlers.onNotification(message.params);
      return;
    }
    if (typeof message.id === "number") this.pending.get(message.id)?.(message);
  }

  private ended(): void {
    for (const settle of [...this.pending.values()])
      settle({ error: { code: -32002, message: "upstream node connection lost" } });
    if (this.closedByUs) return;
    this.closedByUs = true;
    this.handlers.onLost();
  }
}
