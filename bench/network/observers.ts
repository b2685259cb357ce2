/**
 * What the network benchmark watches: every node's `newHeads` over WebSocket (when each node
 * committed each block) and the finalized block (polled), and the figures derived from them.
 */
import WebSocket from "ws";
import { percentile } from "../load.js";
import { hexToNumber, RpcClient, sleep } from "../rpc.js";
import type { TestnetNode } from "./testnet-process.js";

/** How often the finalized block is polled, ms (bounds the finality lag's resolution). */
const FINALITY_POLL_MS = 100;

/** One block as the nodes announced it. */
interface SeenBlock {
  readonly number: number;
  readonly miner: string;
  /** When each node announced it (performance.now()), by node index. */
  readonly at: (number | undefined)[];
}

/** Percentiles of a sample. */
export interface Spread {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
}

function spread(values: readonly number[]): Spread {
  const sorted = Float64Array.from(values).sort();
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Every node's newHeads, kept by block hash with the time each node announced the block. */
export class HeadsWatch {
  private readonly blocks = new Map<string, SeenBlock>();
  private readonly sockets: WebSocket[] = [];

  private constructor(private readonly nodes: readonly TestnetNode[]) {}

  /** Subscribes to newHeads on every node. */
  static async start(nodes: readonly TestnetNode[]): Promise<HeadsWatch> {
    const watch = new HeadsWatch(nodes);
    await Promise.all(nodes.map((node, i) => watch.subscribe(node, i)));
    return watch;
  }

  private async subscribe(node: TestnetNode, index: number): Promise<void> {
    const socket = new WebSocket(node.wsUrl, { perMessageDeflate: false });
    this.sockets.push(socket);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    socket.on("message", (data) => {
      const at = performance.now();
      const message = JSON.parse(String(data)) as {
        method?: string;
        params?: { result: { hash: string; number: string; miner: string } };
      };
      if (message.method !== "eth_subscription" || !message.params) return;
      const { hash, number, miner } = message.params.result;
      let block = this.blocks.get(hash);
      if (!block) {
        block = {
          number: hexToNumber(number),
          miner: miner.toLowerCase(),
          at: this.nodes.map(() => undefined),
        };
        this.blocks.set(hash, block);
      }
      // A reorganisation announces a block again: the first announcement counts.
      block.at[index] ??= at;
    });
    socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newHeads"] }));
  }

  /** When the sealer's node announced block `hash` (its commit: the block is sealed and stored). */
  sealedAt(hash: string): number | undefined {
    const block = this.blocks.get(hash);
    if (!block) return undefined;
    const sealer = this.nodes.findIndex((n) => n.validator === block.miner);
    return sealer < 0 ? undefined : block.at[sealer];
  }

  /**
   * Block propagation between `from` and `to` (performance.now()): for each block sealed in that
   * window and announced by every node, the delay from its sealer's announcement to each other
   * node's (`perPeer`) and to the last node's (`toAll`), in ms.
   */
  propagation(from: number, to: number): { perPeer: Spread; toAll: Spread; blocks: number } {
    const perPeer: number[] = [];
    const toAll: number[] = [];
    for (const [hash, block] of this.blocks) {
      const sealed = this.sealedAt(hash);
      if (sealed === undefined || sealed < from || sealed > to) continue;
      if (block.at.some((t) => t === undefined)) continue;
      const delays = block.at.flatMap((t, i) =>
        this.nodes[i]!.validator === block.miner ? [] : [t! - sealed],
      );
      perPeer.push(...delays);
      toAll.push(Math.max(...delays));
    }
    return { perPeer: spread(perPeer), toAll: spread(toAll), blocks: toAll.length };
  }

  /** Closes the subscriptions. */
  close(): void {
    for (const socket of this.sockets) socket.close();
  }
}

/** One poll of a node's head and finalized block. */
interface FinalitySample {
  readonly at: number;
  readonly head: number;
  readonly finalized: number;
  readonly finalizedHash: string;
}

/** Polls one node's head and finalized block; gives the finality lag in blocks and in seconds. */
export class FinalityWatch {
  private readonly samples: FinalitySample[] = [];
  private readonly rpc: RpcClient;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(node: TestnetNode) {
    this.rpc = new RpcClient(node.url, { maxSockets: 1, timeoutMs: 5_000 });
    this.loop = this.poll();
  }

  private async poll(): Promise<void> {
    while (this.running) {
      try {
        const [head, finalized] = await this.rpc.batch([
          { method: "eth_blockNumber", params: [] },
          { method: "eth_getBlockByNumber", params: ["finalized", false] },
        ]);
        const block = finalized?.result as { number: string; hash: string } | undefined;
        if (head?.result !== undefined && block)
          this.samples.push({
            at: performance.now(),
            head: hexToNumber(head.result),
            finalized: hexToNumber(block.number),
            finalizedHash: block.hash,
          });
      } catch {
        // A missed sample only coarsens the figures.
      }
      await sleep(FINALITY_POLL_MS);
    }
  }

  /**
   * Finality lag between `from` and `to`: in blocks, the head minus the finalized block at each poll;
   * in seconds, for each block that became finalized in the window (its hash from `canonical`, the
   * chain by number), from its sealing as `heads` saw it to the first poll that found it finalized.
   */
  lag(heads: HeadsWatch, canonical: ReadonlyMap<number, string>, from: number, to: number) {
    const window = this.samples.filter((s) => s.at >= from && s.at <= to);
    const blocks = window.map((s) => s.head - s.finalized);
    const seconds: number[] = [];
    let previous = window[0]?.finalized ?? 0;
    for (const sample of window) {
      for (let n = previous + 1; n <= sample.finalized; n++) {
        const hash = canonical.get(n);
        const sealed = hash === undefined ? undefined : heads.sealedAt(hash);
        if (sealed !== undefined) seconds.push((sample.at - sealed) / 1000);
      }
      if (sample.finalized > previous) previous = sample.finalized;
    }
    return { blocks: spread(blocks), seconds: spread(seconds) };
  }

  /** Stops polling. */
  async close(): Promise<void> {
    this.running = false;
    await this.loop;
    this.rpc.close();
  }
}
