import { randomBytes } from "node:crypto";
import { pino } from "pino";
import WebSocket from "ws";
import type { GatewayConfigOverrides } from "../config.js";
import { createGateway, type Gateway, type GatewayDependencies } from "../gateway.js";

/** Redis of the test machine. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A clock the test moves by hand. */
export class ManualClock {
  constructor(public now: number) {}
  readonly read = (): number => this.now;
  advance(ms: number): void {
    this.now += ms;
  }
}

/** A unique Redis key prefix, so parallel test files never share counters. */
export function redisPrefix(): string {
  return `strata-test:${randomBytes(6).toString("hex")}`;
}

/** Starts a gateway with a silent logger; the caller stops it. */
export async function startGateway(
  overrides: GatewayConfigOverrides,
  dependencies: GatewayDependencies = {},
): Promise<Gateway> {
  const gateway = await createGateway(
    { healthIntervalMs: 200, keyCacheSeconds: 0, ...overrides },
    { logger: pino({ level: "silent" }), ...dependencies },
  );
  await gateway.start();
  return gateway;
}

/** A parsed JSON document, read loosely in assertions: the fields the tests look at. */
export interface Json {
  readonly id: Json;
  readonly result: Json;
  readonly error: Json;
  readonly code: Json;
  readonly message: Json;
  readonly data: Json;
  readonly hash: Json;
  readonly number: Json;
  readonly blockNumber: Json;
  readonly blockHash: Json;
  readonly clientVersion: Json;
  readonly key: Json;
  readonly keys: readonly Json[];
}

/** The entries of a batch answer. */
export function entries(json: Json): readonly Json[] {
  return json as unknown as readonly Json[];
}

/** An HTTP answer with its parsed JSON body (undefined when empty or not JSON). */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Json;
}

/** POSTs `body` (an object is JSON-encoded) to `url`. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return answer(response);
}

/** GETs `url`. */
export async function get(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return answer(await fetch(url, { headers }));
}

async function answer(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  let json: Json;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = {} as Json;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A JSON-RPC call object. */
export function call(method: string, params: unknown[] = [], id: number | string = 1): object {
  return { jsonrpc: "2.0", id, method, params };
}

/** A JSON-RPC message received over WebSocket. */
export interface WsMessage {
  id?: number;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
  method?: string;
  params?: { subscription: string; result: Json };
}

/** A raw WebSocket JSON-RPC client that keeps every message it receives. */
export class WsClient {
  readonly messages: WsMessage[] = [];
  private nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.messages.push(JSON.parse(String(data)) as WsMessage));
  }

  /** Connects to `url`. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    const ws = new WebSocket(url, { headers });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    return new WsClient(ws);
  }

  /** Sends a call and waits for its answer. */
  async call(method: string, params: unknown[] = []): Promise<WsMessage> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.waitFor((m) => m.id === id);
  }

  /** Waits until a received message matches. */
  async waitFor(predicate: (m: WsMessage) => boolean, timeoutMs = 15_000): Promise<WsMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("timed out waiting for a message");
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Notifications received for `subscription`. */
  notifications(subscription: string): Json[] {
    return this.messages.filter((m) => m.params?.subscription === subscription).map((m) => m.params!.result);
  }

  close(): void {
    this.ws.close();
  }
}
