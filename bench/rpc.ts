import http from "node:http";

/** A JSON-RPC error returned by the server (HTTP succeeded, the call did not). */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (code ${code})`);
    this.name = "RpcError";
  }
}

export interface RpcCall {
  method: string;
  params: readonly unknown[];
}

export interface RpcOutcome {
  result?: unknown;
  error?: { code: number; message: string };
}

export interface RpcClientOptions {
  /** Sockets kept open to the server (keep-alive). */
  maxSockets?: number;
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
}

interface JsonRpcResponse {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/**
 * Minimal JSON-RPC over HTTP/1.1 with keep-alive, built on node:http so the
 * client side stays cheap while it shares the CPU with the server under test.
 */
export class RpcClient {
  readonly url: string;
  readonly #target: URL;
  readonly #agent: http.Agent;
  readonly #timeoutMs: number;
  #nextId = 1;

  constructor(url: string, options: RpcClientOptions = {}) {
    this.url = url;
    this.#target = new URL(url);
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 8 });
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /**
   * POST a raw body and return status and body text. A request that fails with a
   * connection reset on a reused keep-alive socket (the server closed it while idle)
   * is retried once on a connection of its own.
   */
  post(body: string, ownConnection = false): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent: ownConnection ? false : this.#agent,
          hostname: this.#target.hostname,
          port: this.#target.port,
          path: this.#target.pathname + this.#target.search,
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
          timeout: this.#timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
          );
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error(`request to ${this.url} timed out`)));
      req.on("error", (err: NodeJS.ErrnoException) => {
        const reset = err.code === "ECONNRESET" || err.code === "EPIPE";
        if (reset && req.reusedSocket && !ownConnection) resolve(this.post(body, true));
        else reject(err);
      });
      req.end(body);
    });
  }

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const id = this.#nextId++;
    const { status, text } = await this.post(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    const parsed = parseResponse(method, status, text);
    if (Array.isArray(parsed)) throw new Error(`${method}: expected a single response, got an array`);
    return unwrap(method, parsed) as T;
  }

  /** Send a JSON-RPC batch; outcomes are returned in request order. */
  async batch(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    const first = this.#nextId;
    this.#nextId += calls.length;
    const payload = calls.map((c, i) => ({
      jsonrpc: "2.0",
      id: first + i,
      method: c.method,
      params: c.params,
    }));
    const { status, text } = await this.post(JSON.stringify(payload));
    const parsed = parseResponse("batch", status, text);
    if (!Array.isArray(parsed)) {
      const message = parsed.error ? String(parsed.error.message) : "not an array";
      throw new Error(`batch: server answered with a single object (${message})`);
    }
    const byId = new Map<unknown, JsonRpcResponse>();
    for (const item of parsed) byId.set(item.id, item);
    return calls.map((c, i) => {
      const item = byId.get(first + i);
      if (!item) return { error: { code: -1, message: `${c.method}: missing from batch response` } };
      if (item.error) {
        return {
          error: { code: Number(item.error.code ?? 0), message: String(item.error.message ?? "error") },
        };
      }
      return { result: item.result };
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

function parseResponse(method: string, status: number, text: string): JsonRpcResponse | JsonRpcResponse[] {
  if (status < 200 || status >= 300) {
    throw new Error(`${method}: HTTP ${status}: ${text.slice(0, 200)}`);
  }
  try {
    return JSON.parse(text) as JsonRpcResponse | JsonRpcResponse[];
  } catch {
    throw new Error(`${method}: response is not JSON: ${text.slice(0, 200)}`);
  }
}

function unwrap(method: string, response: JsonRpcResponse): unknown {
  if (response.error) {
    throw new RpcError(method, Number(response.error.code ?? 0), String(response.error.message ?? "error"));
  }
  if (!("result" in response)) throw new Error(`${method}: response has neither result nor error`);
  return response.result;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function hexToNumber(hex: unknown): number {
  if (typeof hex !== "string" || !/^0x[0-9a-fA-F]+$/.test(hex))
    throw new Error(`not a hex quantity: ${String(hex)}`);
  return Number.parseInt(hex, 16);
}

export function hexToBigInt(hex: unknown): bigint {
  if (typeof hex !== "string" || !/^0x[0-9a-fA-F]+$/.test(hex))
    throw new Error(`not a hex quantity: ${String(hex)}`);
  return BigInt(hex);
}
