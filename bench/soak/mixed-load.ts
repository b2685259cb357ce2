/**
 * The soak's steady mixed load: 20 transfers/s from 5 senders, 100 eth_getBalance/s, eth_getLogs over
 * the last 100 blocks every second, block filters polled every 2 s and replaced every minute, and
 * WebSocket clients that subscribe and close every 5 s.
 */
import { type Hex, keccak256, parseGwei, toHex } from "viem";
import WebSocket from "ws";
import { devAccounts } from "../accounts.js";
import { hexToNumber, RpcClient, sleep } from "../rpc.js";
import { CHAIN_ID } from "../targets.js";

const TRANSFERS_PER_SECOND = 20;
const BALANCES_PER_SECOND = 100;
const GET_LOGS_EVERY_MS = 1_000;
const LOG_RANGE_BLOCKS = 100;
const BLOCK_FILTERS = 5;
const FILTER_POLL_MS = 2_000;
const FILTER_REPLACE_MS = 60_000;
const WS_CLIENTS = 10;
const WS_CHURN_MS = 5_000;
/** Addresses read by eth_getBalance (the transfer recipients among them). */
const ADDRESSES = Array.from(
  { length: 1_000 },
  (_, i) => `0x${keccak256(toHex(`soak-${i}`)).slice(26)}` as Hex,
);
const RECIPIENTS = ADDRESSES.slice(0, 100);

/** Where the load goes: JSON-RPC over HTTP and WebSocket (the gateway's carry an API key). */
export interface LoadEndpoints {
  readonly http: string;
  readonly ws: string;
}

/** What the load did, by kind: requests sent, and those that failed. */
export interface LoadTally {
  readonly sent: Record<string, number>;
  readonly errors: Record<string, number>;
  /** The first few error messages, for the report. */
  readonly errorSamples: string[];
}

/** A running load; `stop` ends it and resolves once everything in flight settled. */
export interface RunningLoad {
  readonly tally: LoadTally;
  stop(): Promise<void>;
}

/** Starts the mixed load against `endpoints`. */
export async function startMixedLoad(endpoints: LoadEndpoints): Promise<RunningLoad> {
  const rpc = new RpcClient(endpoints.http, { maxSockets: 32, timeoutMs: 30_000 });
  const tally: LoadTally = { sent: {}, errors: {}, errorSamples: [] };
  const count = (kind: string) => {
    tally.sent[kind] = (tally.sent[kind] ?? 0) + 1;
  };
  const fail = (kind: string, error: unknown) => {
    tally.errors[kind] = (tally.errors[kind] ?? 0) + 1;
    if (tally.errorSamples.length < 20) tally.errorSamples.push(`${kind}: ${(error as Error).message}`);
  };
  const inFlight = new Set<Promise<unknown>>();
  const track = (kind: string, work: () => Promise<unknown>) => {
    count(kind);
    const p = work()
      .catch((error) => fail(kind, error))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  let running = true;
  const loops: Promise<void>[] = [];

  // Transfers: five senders, each with its own chain of nonces (one send at a time per sender).
  const senders = devAccounts().slice(5, 10);
  const nonces = await Promise.all(
    senders.map(async (s) => hexToNumber(await rpc.call("eth_getTransactionCount", [s.address, "pending"]))),
  );
  const senderBusy = senders.map(() => Promise.resolve());
  let transfers = 0;
  const sendTransfer = (i: number) => {
    const s = i % senders.length;
    const account = senders[s]!;
    senderBusy[s] = senderBusy[s]!.then(
      () =>
        new Promise<void>((resolve) =>
          track("eth_sendRawTransaction", async () => {
            try {
              const raw = await account.signTransaction({
                chainId: CHAIN_ID,
                type: "eip1559",
                to: RECIPIENTS[i % RECIPIENTS.length]!,
                value: 1n,
                nonce: nonces[s]!,
                gas: 21_000n,
                maxFeePerGas: parseGwei("100"),
                maxPriorityFeePerGas: parseGwei("1"),
              });
              try {
                await rpc.call("eth_sendRawTransaction", [raw]);
                nonces[s]!++;
              } catch (error) {
                // Back on the node's view of the sender's nonce, so one failure does not stall the sender.
                nonces[s] = hexToNumber(
                  await rpc.call("eth_getTransactionCount", [account.address, "pending"]),
                );
                throw error;
              }
            } finally {
              resolve();
            }
          }),
        ),
    );
  };

  // Rates are kept against the clock: each tick sends what is due since the start.
  const started = performance.now();
  let balances = 0;
  loops.push(
    (async () => {
      while (running) {
        const elapsed = (performance.now() - started) / 1000;
        while (transfers < elapsed * TRANSFERS_PER_SECOND) sendTransfer(transfers++);
        while (balances < elapsed * BALANCES_PER_SECOND) {
          const address = ADDRESSES[balances++ % ADDRESSES.length]!;
          track("eth_getBalance", () => rpc.call("eth_getBalance", [address, "latest"]));
        }
        await sleep(10);
      }
    })(),
  );

  loops.push(
    (async () => {
      while (running) {
        track("eth_getLogs", async () => {
          const head = hexToNumber(await rpc.call("eth_blockNumber"));
          const from = Math.max(0, head - LOG_RANGE_BLOCKS + 1);
          await rpc.call("eth_getLogs", [{ fromBlock: toHex(from), toBlock: toHex(head) }]);
        });
        await sleep(GET_LOGS_EVERY_MS);
      }
    })(),
  );

  // Block filters: polled every 2 s, uninstalled and replaced every minute; one more each minute is
  // left behind unpolled, for the node's timeout to remove.
  loops.push(
    (async () => {
      let filters: string[] = [];
      let installedAt = Number.NEGATIVE_INFINITY;
      while (running) {
        if (performance.now() - installedAt >= FILTER_REPLACE_MS) {
          for (const id of filters) track("eth_uninstallFilter", () => rpc.call("eth_uninstallFilter", [id]));
          filters = [];
          for (let i = 0; i <= BLOCK_FILTERS; i++) {
            try {
              count("eth_newBlockFilter");
              const id = await rpc.call<string>("eth_newBlockFilter");
              if (i < BLOCK_FILTERS) filters.push(id);
            } catch (error) {
              fail("eth_newBlockFilter", error);
            }
          }
          installedAt = performance.now();
        }
        for (const id of filters) track("eth_getFilterChanges", () => rpc.call("eth_getFilterChanges", [id]));
        await sleep(FILTER_POLL_MS);
      }
    })(),
  );

  // WebSocket churn: every 5 s a new set of clients subscribes to newHeads and logs; the previous set closes.
  const sockets = new Set<WebSocket>();
  const abandoned = new Set<WebSocket>();
  loops.push(
    (async () => {
      let previous: WebSocket[] = [];
      while (running) {
        const next: WebSocket[] = [];
        for (let i = 0; i < WS_CLIENTS; i++) {
          count("ws_connect");
          const ws = new WebSocket(endpoints.ws, { perMessageDeflate: false, handshakeTimeout: 5_000 });
          sockets.add(ws);
          ws.on("open", () => {
            ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}');
            ws.send('{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["logs",{}]}');
          });
          ws.on("error", (error) => {
            if (!abandoned.has(ws)) fail("ws_connect", error);
          });
          ws.on("close", () => {
            sockets.delete(ws);
            abandoned.delete(ws);
          });
          next.push(ws);
        }
        // A client still connecting after 5 s (a busy machine) is abandoned, not counted as an error.
        for (const ws of previous) {
          if (ws.readyState === WebSocket.CONNECTING) {
            count("ws_abandoned");
            abandoned.add(ws);
            ws.terminate();
          } else ws.close();
        }
        previous = next;
        await sleep(WS_CHURN_MS);
      }
      for (const ws of previous) ws.close();
    })(),
  );

  return {
    tally,
    async stop() {
      running = false;
      await Promise.all(loops);
      await Promise.all(senderBusy);
      await Promise.allSettled([...inFlight]);
      for (const ws of sockets) ws.terminate();
      rpc.close();
    },
  };
}
