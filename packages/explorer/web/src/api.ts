import { readJsonBody } from "./json-body.ts";

/** Where the explorer finds the gateway; served by the explorer server as `/config.json`. */
export interface ExplorerConfig {
  apiUrl: string;
  /** Live heads; carries the API key as `apiKey` when there is one (browsers cannot set WebSocket headers). */
  wsUrl: string;
  /** Sent as `X-API-Key` with every request when the explorer was started with one. */
  apiKey?: string;
}

/** An API answer that is not a success: HTTP status plus the gateway's `{error: {code, message}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | string | null,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The resource does not exist (or the feature behind it is absent on this network). */
  get notFound(): boolean {
    return this.status === 404;
  }

  /** The feature is not served here: a 404/501 for a whole section, or JSON-RPC -32601/-32004. */
  get notAvailable(): boolean {
    return this.status === 501 || this.code === -32601 || this.code === -32004;
  }
}

let configPromise: Promise<ExplorerConfig> | undefined;

/** Loads `/config.json` once; the API URL is chosen when the explorer is started, not at build time. */
export function loadConfig(): Promise<ExplorerConfig> {
  configPromise ??= fetch("/config.json", { cache: "no-store" }).then(async (res) => {
    if (!res.ok) throw new ApiError(res.status, null, `explorer configuration unavailable (${res.status})`);
    const raw = (await res.json()) as Partial<ExplorerConfig>;
    if (typeof raw.apiUrl !== "string") throw new ApiError(500, null, "explorer configuration has no apiUrl");
    const apiUrl = raw.apiUrl.replace(/\/+$/, "");
    const wsUrl = new URL(raw.wsUrl ?? `${apiUrl.replace(/^http/, "ws")}/ws`);
    if (typeof raw.apiKey !== "string" || raw.apiKey === "") return { apiUrl, wsUrl: wsUrl.href };
    wsUrl.searchParams.set("apiKey", raw.apiKey);
    return { apiUrl, wsUrl: wsUrl.href, apiKey: raw.apiKey };
  });
  return configPromise;
}

const MAX_RETRIES = 3;

/** How long a 429 asks us to wait: `Retry-After` seconds or the error's `data.retryAfterMs`, bounded. */
function retryDelayMs(res: Response, body: unknown): number {
  const fromBody = (body as { error?: { data?: { retryAfterMs?: number } } } | null)?.error?.data
    ?.retryAfterMs;
  const fromHeader = Number(res.headers.get("retry-after")) * 1000;
  const ms = typeof fromBody === "number" ? fromBody : Number.isFinite(fromHeader) ? fromHeader : 1000;
  return Math.min(5000, Math.max(250, ms));
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });

/**
 * Fetches `url` and parses its JSON body. A rate-limited answer (429) is retried after the wait the
 * gateway asks for, a few times, before it is handed back.
 */
async function request(
  url: string,
  init: RequestInit,
  config: ExplorerConfig,
): Promise<{ res: Response; body: unknown }> {
  const { apiUrl, apiKey } = config;
  const headers = new Headers(init.headers);
  if (apiKey !== undefined) headers.set("x-api-key", apiKey);
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, { ...init, headers });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(0, null, `the API at ${apiUrl} cannot be reached`);
    }
    const body = await readJsonBody(res, init.signal);
    if (res.status !== 429 || attempt >= MAX_RETRIES) return { res, body };
    await sleep(retryDelayMs(res, body), init.signal ?? undefined);
  }
}

/** GETs `path` (e.g. `/v1/chain`) from the gateway and returns its JSON body. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const config = await loadConfig();
  const { res, body } = await request(config.apiUrl + path, signal ? { signal } : {}, config);
  if (res.ok) {
    if (body === undefined) throw new ApiError(res.status, null, `the API's answer for ${path} is not JSON`);
    return body as T;
  }
  const err = (body as { error?: { code?: number | string; message?: string } } | null)?.error;
  throw new ApiError(res.status, err?.code ?? null, err?.message ?? `${res.status} ${res.statusText}`);
}

/** Calls a JSON-RPC method through the gateway's `/rpc` endpoint. */
export async function rpc<T>(method: string, params: unknown[], signal?: AbortSignal): Promise<T> {
  const config = await loadConfig();
  const { res, body } = await request(
    `${config.apiUrl}/rpc`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      ...(signal ? { signal } : {}),
    },
    config,
  );
  const answer = body as { result?: T; error?: { code: number; message: string } } | null | undefined;
  if (answer?.error) throw new ApiError(res.status, answer.error.code, answer.error.message);
  if (!res.ok || answer == null || !("result" in answer)) {
    throw new ApiError(res.status, null, `${method} failed (${res.status})`);
  }
  return answer.result as T;
}

/** A frame of a `callTracer` trace (JSON-RPC `debug_traceTransaction`). */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
}

/** The transaction's call tree from `debug_traceTransaction` with `callTracer`, or null when not traced. */
export async function traceCalls(hash: string, signal?: AbortSignal): Promise<CallFrame | null> {
  try {
    return await rpc<CallFrame>("debug_traceTransaction", [hash, { tracer: "callTracer" }], signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    return null;
  }
}
