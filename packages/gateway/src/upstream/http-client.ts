import { Agent, request } from "node:http";

/** An upstream's HTTP answer. */
export interface UpstreamResponse {
  readonly status: number;
  readonly body: string;
}

/** The request may not have reached the node (refused connection, reset, timeout). */
export class UpstreamTransportError extends Error {
  constructor(
    readonly upstream: string,
    /** False only when the node certainly never saw the request (connection refused). */
    readonly maybeDelivered: boolean,
    cause: unknown,
  ) {
    super(`upstream ${upstream}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "UpstreamTransportError";
  }
}

/** A node's answer was longer than the gateway reads: the request fails without failover (-32005). */
export class UpstreamResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`upstream answer exceeds ${maxBytes} bytes`);
    this.name = "UpstreamResponseTooLargeError";
  }
}

/** Connection errors raised before any byte was sent. */
const NOT_DELIVERED = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/** A keep-alive HTTP client for one upstream node's JSON-RPC endpoint. */
export class UpstreamHttpClient {
  private readonly agent = new Agent({
    keepAlive: true,
    noDelay: true,
    maxSockets: 512,
    scheduling: "lifo",
    timeout: 4_000,
  });
  private readonly target: URL;

  constructor(
    readonly url: string,
    private readonly timeoutMs: number,
    /** Longest answer read; a longer one is cut off and rejected with {@link UpstreamResponseTooLargeError}. */
    private readonly maxResponseBytes = Number.POSITIVE_INFINITY,
  ) {
    this.target = new URL(url);
  }

  /** POSTs a JSON body; rejects with {@link UpstreamTransportError} when no answer arrives. */
  post(body: string, timeoutMs = this.timeoutMs): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.agent,
          hostname: this.target.hostname,
          port: this.target.port,
          path: this.target.pathname + this.target.search,
          method: "POST",
          headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let received = 0;
          res.on("data", (chunk: Buffer) => {
            received += chunk.length;
            if (received > this.maxResponseBytes) {
              chunks.length = 0;
              reject(new UpstreamResponseTooLargeError(this.maxResponseBytes));
              req.destroy();
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", (error) => reject(new UpstreamTransportError(this.url, true, error)));
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on("error", (error: NodeJS.ErrnoException) =>
        reject(new UpstreamTransportError(this.url, !NOT_DELIVERED.has(error.code ?? ""), error)),
      );
      req.end(body);
    });
  }

  /** Closes pooled connections. */
  close(): void {
    this.agent.destroy();
  }
}
