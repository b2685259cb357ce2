import WebSocket from "ws";
import { percentile } from "../load.js";
import { hexToNumber, RpcClient, sleep } from "../rpc.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

const CLIENTS = 1_000;
/** WebSocket handshakes (and subscriptions) in progress at once. */
const CONNECT_CONCURRENCY = 100;
const CONNECT_TIMEOUT_MS = 10_000;
/** Seconds of block production measured once every client is subscribed. */
const WINDOW_SECONDS = 15;
/** After the window, how long the last block's notifications may take before they count as missed. */
const GRACE_MS = 1_500;
const CLOSE_TIMEOUT_MS = 5_000;
const SUBSCRIBE = '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}';

interface Client {
  readonly ws: WebSocket;
  /** Arrival time (performance.now()) and raw frame of every notification, decoded after the run. */
  readonly times: number[];
  readonly frames: Buffer[];
  subscribed: boolean;
  /** Closed or failed before the scenario closed it. */
  lost: boolean;
}

function toBuffer(data: WebSocket.RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Opens one client and subscribes it to newHeads; resolves once the subscription id arrived. */
function openClient(url: string, all: Client[]): Promise<Client> {
  const ws = new WebSocket(url, {
    perMessageDeflate: false,
    skipUTF8Validation: true,
    handshakeTimeout: CONNECT_TIMEOUT_MS,
  });
  const client: Client = { ws, times: [], frames: [], subscribed: false, lost: false };
  all.push(client);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`no subscription within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    const fail = (err: Error) => {
      clearTimeout(timer);
      client.lost = true;
      reject(err);
    };
    ws.on("open", () => ws.send(SUBSCRIBE));
    ws.on("message", (data) => {
      const at = performance.now();
      const frame = toBuffer(data);
      if (!client.subscribed) {
        // Until the subscription is confirmed, look for the answer to request id 1.
        const parsed = JSON.parse(frame.toString("utf8")) as {
          id?: unknown;
          result?: unknown;
          error?: unknown;
        };
        if (parsed.id === 1) {
          if (typeof parsed.result !== "string") {
            fail(new Error(`eth_subscribe: ${JSON.stringify(parsed.error ?? parsed.result)}`));
            return;
          }
          client.subscribed = true;
          clearTimeout(timer);
          resolve(client);
          return;
        }
      }
      client.times.push(at);
      client.frames.push(frame);
    });
    ws.on("error", (err) => {
      if (!client.subscribed) fail(err);
      else client.lost = true;
    });
    ws.on("close", () => {
      if (!client.subscribed) fail(new Error("closed before subscribing"));
      else client.lost = true;
    });
  });
}

/** Opens CLIENTS clients, CONNECT_CONCURRENCY at a time; every socket created ends up in `all`. */
async function openClients(url: string, all: Client[]): Promise<void> {
  let started = 0;
  let firstError: Error | undefined;
  const worker = async () => {
    while (started < CLIENTS && !firstError) {
      started++;
      try {
        await openClient(url, all);
      } catch (err) {
        firstError ??= err as Error;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECT_CONCURRENCY }, worker));
  if (firstError) throw new Error(`opening ${CLIENTS} WebSocket clients: ${firstError.message}`);
}

/** Closes every client (close handshake), terminating those that do not finish in time. */
async function closeClients(all: readonly Client[]): Promise<void> {
  const closing = all.map((c) => {
    if (c.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise<void>((resolve) => {
      c.ws.once("close", () => resolve());
      if (c.ws.readyState === WebSocket.CONNECTING) c.ws.terminate();
      else c.ws.close(1000);
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
  });
  await Promise.race([Promise.all(closing), timeout]);
  clearTimeout(timer);
  for (const c of all) if (c.ws.readyState !== WebSocket.CLOSED) c.ws.terminate();
}

/** Block number of a newHeads notification frame; undefined for anything else. */
function blockNumberOf(frame: Buffer): number | undefined {
  const message = JSON.parse(frame.toString("utf8")) as {
    method?: string;
    params?: { result?: { number?: string } };
  };
  if (message.method !== "eth_subscription") return undefined;
  const n = message.params?.result?.number;
  return n === undefined ? undefined : hexToNumber(n);
}

async function runWsNewHeads(ctx: ScenarioContext): Promise<Measurement> {
  const wsUrl = `${ctx.node.url.replace(/^http/, "ws")}/`;
  const rpc = new RpcClient(ctx.node.url, { maxSockets: 1 });
  const clients: Client[] = [];
  try {
    const connectStarted = performance.now();
    await openClients(wsUrl, clients);
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    ctx.log(`${CLIENTS} clients subscribed to newHeads in ${connectSeconds.toFixed(1)} s`);

    // Blocks after `startHead` are produced once every client is subscribed.
    const startHead = hexToNumber(await rpc.call("eth_blockNumber"));
    const windowStarted = performance.now();
    await sleep(WINDOW_SECONDS * 1000);
    const endHead = hexToNumber(await rpc.call("eth_blockNumber"));
    const windowSeconds = (performance.now() - windowStarted) / 1000;
    await sleep(GRACE_MS);
    const lostDuringRun = clients.filter((c) => c.lost).length;
    await closeClients(clients);

    const first = startHead + 1;
    const last = endHead;
    const blocks = Math.max(0, last - first + 1);
    if (blocks === 0) throw new Error(`no block produced in ${WINDOW_SECONDS} s (head ${startHead})`);

    // Decode; per client: first arrival of each block number, duplicates, gaps.
    const arrivals: Map<number, number>[] = [];
    let duplicates = 0;
    let missed = 0;
    let clientsMissing = 0;
    let otherFrames = 0;
    for (const c of clients) {
      const seen = new Map<number, number>();
      for (const [i, frame] of c.frames.entries()) {
        const n = blockNumberOf(frame);
        if (n === undefined) {
          otherFrames++;
          continue;
        }
        if (seen.has(n)) duplicates++;
        else seen.set(n, c.times[i]!);
      }
      // Expected: every block of the window, and no gap between the first and last block seen.
      const numbers = [...seen.keys()];
      const low = Math.min(first, ...numbers);
      const high = Math.max(last, ...numbers);
      let clientMissed = 0;
      for (let n = low; n <= high; n++) if (!seen.has(n)) clientMissed++;
      if (clientMissed > 0) clientsMissing++;
      missed += clientMissed;
      arrivals.push(seen);
    }

    // Lag: arrival minus the first arrival of the same block at any client; spread: last minus first.
    const lags: number[] = [];
    const spreads: number[] = [];
    const intervals: number[] = [];
    let previousFirst: number | undefined;
    for (let n = first; n <= last; n++) {
      const times = arrivals.map((a) => a.get(n)).filter((t): t is number => t !== undefined);
      if (times.length === 0) continue;
      const earliest = Math.min(...times);
      const latest = Math.max(...times);
      for (const t of times) lags.push(t - earliest);
      spreads.push(latest - earliest);
      if (previousFirst !== undefined) intervals.push(earliest - previousFirst);
      previousFirst = earliest;
    }
    const sortedLags = Float64Array.from(lags).sort();
    const sortedSpreads = Float64Array.from(spreads).sort();
    const sortedIntervals = Float64Array.from(intervals).sort();
    const delivered = lags.length;
    const spreadP50 = percentile(sortedSpreads, 50);
    const spreadMax = sortedSpreads.length > 0 ? sortedSpreads[sortedSpreads.length - 1]! : Number.NaN;

    const notes = [
      `${CLIENTS} clients, ${blocks} blocks, missed ${missed}, duplicates ${duplicates}`,
      `spread p50 ${spreadP50.toFixed(1)} ms, max ${spreadMax.toFixed(1)} ms`,
    ];
    if (lostDuringRun > 0) notes.push(`${lostDuringRun} clients disconnected`);
    return {
      unit: "notif/s",
      throughput: delivered / windowSeconds,
      p50Ms: delivered > 0 ? percentile(sortedLags, 50) : null,
      p99Ms: delivered > 0 ? percentile(sortedLags, 99) : null,
      errors: missed + duplicates + lostDuringRun,
      notes,
      details: {
        clients: CLIENTS,
        connectConcurrency: CONNECT_CONCURRENCY,
        connectSeconds,
        windowSeconds,
        graceMs: GRACE_MS,
        firstBlock: first,
        lastBlock: last,
        blocks,
        delivered,
        expected: blocks * CLIENTS,
        missed,
        clientsMissing,
        duplicates,
        lostDuringRun,
        otherFrames,
        lagP90Ms: percentile(sortedLags, 90),
        lagMaxMs: sortedLags.length > 0 ? sortedLags[sortedLags.length - 1] : null,
        spreadP50Ms: spreadP50,
        spreadP99Ms: percentile(sortedSpreads, 99),
        spreadMaxMs: spreadMax,
        blockIntervalP50Ms: percentile(sortedIntervals, 50),
        blockIntervalMaxMs: sortedIntervals.length > 0 ? sortedIntervals[sortedIntervals.length - 1] : null,
      },
    };
  } finally {
    rpc.close();
    await closeClients(clients);
  }
}

/** newHeads fan-out: 1,000 WebSocket subscribers on a node producing a block every second. */
export const wsNewHeads: Scenario = {
  name: "wsNewHeads",
  description:
    `${CLIENTS} WebSocket clients subscribed to newHeads with 1 s blocks for ${WINDOW_SECONDS} s: ` +
    "delivery lag behind the first client to receive each block, missed and duplicate notifications.",
  node: "fresh",
  modes: () => ["interval"],
  run: runWsNewHeads,
};
