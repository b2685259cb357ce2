/**
 * Liveness of a server's WebSocket clients, shared by the node's and the gateway's transports:
 * pings, idle timeouts and the text of each frame. Node.js only (frames are Buffers): a subpath of
 * its own (`@strata/protocol/socket-liveness`), never imported by the package's root.
 */

/** Close code for a binary frame (RFC 6455: unsupported data). */
export const UNSUPPORTED_DATA = 1003;
/** Close code of an idle connection (RFC 6455: going away). */
export const GOING_AWAY = 1001;

/** The part of a `ws` WebSocket that liveness acts on. */
export interface LiveSocket {
  ping(): void;
  terminate(): void;
  close(code: number, reason: string): void;
}

/**
 * One client's liveness: whether it answered the last ping, and when its last message came. A ping
 * round drops a client that missed the previous ping and closes one idle past the timeout.
 */
export class SocketLiveness {
  private answeredPing = true;
  private lastMessageAt = performance.now();

  /** Call on each `pong`. */
  pong(): void {
    this.answeredPing = true;
  }

  /**
   * Call on each `message`: the frame's text, or undefined for a binary frame, after closing the
   * socket with 1003.
   */
  message(socket: LiveSocket, data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): string | undefined {
    this.lastMessageAt = performance.now();
    if (isBinary) {
      socket.close(UNSUPPORTED_DATA, "binary frames are not supported");
      return undefined;
    }
    return Array.isArray(data) ? Buffer.concat(data).toString("utf8") : data.toString("utf8");
  }

  /**
   * One ping round at `now` (performance.now()): terminates a socket that did not answer the last
   * ping, closes (1001) one without subscriptions silent for `idleTimeoutMs`, pings the others.
   */
  pingRound(socket: LiveSocket, now: number, subscribed: boolean, idleTimeoutMs: number): void {
    if (!this.answeredPing) {
      socket.terminate();
      return;
    }
    if (!subscribed && now - this.lastMessageAt >= idleTimeoutMs) {
      socket.close(GOING_AWAY, "idle timeout");
      return;
    }
    this.answeredPing = false;
    socket.ping();
  }
}
