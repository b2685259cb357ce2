import type { Logger } from "pino";
import WebSocket from "ws";

const RECONNECT_MS = 1_000;

/**
 * A `newHeads` subscription over WebSocket that calls `onHead` for every new block and reconnects
 * (re-subscribing) when the socket drops. `connected` says whether heads are flowing.
 */
export class HeadSubscription {
  readonly #url: string;
  readonly #onHead: () => void;
  readonly #log: Logger;
  #socket: WebSocket | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #warned = false;
  connected = false;

  constructor(url: string, onHead: () => void, log: Logger) {
    this.#url = url;
    this.#onHead = onHead;
    this.#log = log;
    this.#connect();
  }

  #connect(): void {
    if (this.#closed) return;
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    socket.on("open", () => {
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
    });
    socket.on("message", (raw) => {
      let message: { id?: number; result?: unknown; method?: string; error?: { message: string } };
      try {
        message = JSON.parse(String(raw));
      } catch {
        return;
      }
      if (message.id === 1) {
        if (message.error) this.#log.warn({ err: message.error.message }, "newHeads subscription refused");
        else {
          this.connected = true;
          this.#warned = false;
          this.#log.debug({ url: this.#url }, "subscribed to newHeads");
        }
      } else if (message.method === "eth_subscription") this.#onHead();
    });
    socket.on("error", (error) => {
      if (!this.#warned)
        this.#log.warn({ url: this.#url, err: error.message }, "newHeads socket error; polling meanwhile");
      this.#warned = true;
    });
    socket.on("close", () => {
      this.connected = false;
      if (this.#closed) return;
      this.#timer = setTimeout(() => this.#connect(), RECONNECT_MS);
    });
  }

  /** Closes the socket and stops reconnecting. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#socket?.terminate();
  }
}

/** The WebSocket URL of a node served on the same port as its HTTP JSON-RPC (`http` -> `ws`). */
export function wsUrlOf(httpUrl: string): string {
  return httpUrl.replace(/^http(s?):\/\//, "ws$1://");
}
