/**
 * The validator network: `strata testnet --validators 4 --block-time 1` (four node processes over
 * p2p). Watches every node's newHeads and node 0's finalized block, first idle, then while
 * transfers are sent round-robin to all four nodes at a fixed offered rate. Reports block
 * propagation (sealer's commit to every peer's), finality lag (blocks and seconds), the mined rate
 * (target >= 500 tx/s, none lost) and each node's CPU. See bench/README.md "network".
 */
import { getAddress, type Hex, keccak256, parseGwei, toHex } from "viem";
import { type LocalAccount, privateKeyToAccount } from "viem/accounts";
import { FinalityWatch, HeadsWatch } from "../network/observers.js";
import { type BenchTestnet, startTestnet } from "../network/testnet-process.js";
import { processCpuSeconds } from "../process-cpu.js";
import { hexToNumber, RpcClient, sleep } from "../rpc.js";
import { fundSenders, latestNonces } from "./ingest.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

const VALIDATORS = 4;
const BLOCK_TIME_SECONDS = 1;
/** Transfers offered per second during the load phase. */
const OFFERED_TPS = 600;
/** The figure the network should sustain, mined, with no transfer lost. */
const TARGET_TPS = 500;
const SENDERS = 120;
/**
 * Requests in flight at once over all nodes. More does not raise the mined rate on a busy machine:
 * it floods the nodes' event loops with requests, and blocks wait behind them (256: propagation p50
 * 12 s, fewer transfers mined).
 */
const IN_FLIGHT = 64;
/** How long, after the last send, the transfers may take to be mined before the rest count as lost. */
const DRAIN_SECONDS = 60;
const GAS = 21_000n;
const PRIORITY_FEE = parseGwei("1");
const MAX_FEE = parseGwei("100");

interface Transfer {
  readonly sender: number;
  readonly raw: Hex;
}

function senderAccounts(): LocalAccount[] {
  return Array.from({ length: SENDERS }, (_, i) =>
    privateKeyToAccount(keccak256(toHex(`strata-bench-network-sender-${i}`))),
  );
}

/** `perSender` transfers of each sender, signed offline, in round-robin order over the senders. */
async function signTransfers(
  senders: readonly LocalAccount[],
  perSender: number,
  chainId: number,
): Promise<Transfer[]> {
  const queue: Transfer[] = [];
  for (let nonce = 0; nonce < perSender; nonce++) {
    for (const [s, account] of senders.entries()) {
      const raw = await account.signTransaction!({
        type: "eip1559",
        chainId,
        nonce,
        to: getAddress(
          keccak256(toHex(`strata-bench-network-recipient-${(s + nonce) % SENDERS}`)).slice(0, 42),
        ),
        value: 1n,
        gas: GAS,
        maxFeePerGas: MAX_FEE,
        maxPriorityFeePerGas: PRIORITY_FEE,
      });
      queue.push({ sender: s, raw });
    }
  }
  return queue;
}

/** CPU seconds each node process has used so far. */
function nodeCpu(testnet: BenchTestnet): (number | undefined)[] {
  return testnet.nodes.map((node) => processCpuSeconds(node.pid));
}

/** Per node, the share of one core it used between two {@link nodeCpu} readings `seconds` apart. */
function coreShares(before: (number | undefined)[], after: (number | undefined)[], seconds: number) {
  return before.map((b, i) => {
    const a = after[i];
    return a === undefined || b === undefined ? undefined : (a - b) / seconds;
  });
}

/** The load phase's outcome. */
interface LoadResult {
  readonly sent: number;
  readonly rejected: number;
  readonly mined: number;
  readonly sendSeconds: number;
  /** From the first send until the last transfer was mined (or the drain gave up). */
  readonly elapsedSeconds: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly cores: (number | undefined)[];
  /** Share of one core the bench process itself used to send and poll. */
  readonly loadGeneratorCores: number;
  readonly blocks: number;
}

/**
 * Sends the transfers at {@link OFFERED_TPS}, each sender's to one node (sender i to node i mod 4),
 * and polls node 0 for the senders' mined nonces until every transfer is mined.
 */
async function runLoad(ctx: ScenarioContext, testnet: BenchTestnet, seconds: number): Promise<LoadResult> {
  const { nodes } = testnet;
  const control = new RpcClient(nodes[0]!.url, { maxSockets: 4, timeoutMs: 30_000 });
  const senders = senderAccounts();
  const perSender = Math.ceil((OFFERED_TPS * seconds) / SENDERS);
  const chainId = hexToNumber(await control.call("eth_chainId"));
  await fundSenders(ctx, control, senders, chainId, MAX_FEE);
  const queue = await signTransfers(senders, perSender, chainId);
  ctx.log(
    `signed ${queue.length} transfers of ${SENDERS} senders; offering ${OFFERED_TPS} tx/s for ${seconds} s`,
  );
  const clients = nodes.map((node) => new RpcClient(node.url, { maxSockets: IN_FLIGHT / nodes.length }));
  const addresses = senders.map((s) => s.address);
  const startBlock = hexToNumber(await control.call("eth_blockNumber"));
  const cpuBefore = nodeCpu(testnet);
  const ownCpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  let next = 0;
  let rejected = 0;
  let sendsDoneAt = startedAt;
  const worker = async () => {
    for (let i = next++; i < queue.length; i = next++) {
      const due = startedAt + (i * 1000) / OFFERED_TPS;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const transfer = queue[i]!;
      try {
        await clients[transfer.sender % nodes.length]!.call("eth_sendRawTransaction", [transfer.raw]);
      } catch {
        rejected++;
      }
    }
  };
  const sending = Promise.all(Array.from({ length: IN_FLIGHT }, worker)).then(() => {
    sendsDoneAt = performance.now();
  });
  let mined = 0;
  let endedAt = startedAt;
  let sendingDone = false;
  void sending.then(() => {
    sendingDone = true;
  });
  for (;;) {
    await sleep(250);
    try {
      mined = (await latestNonces(control, addresses, true)).reduce((sum, n) => sum + n, 0);
      endedAt = performance.now();
    } catch {
      continue;
    }
    if (mined >= queue.length) break;
    if (sendingDone && performance.now() - sendsDoneAt > DRAIN_SECONDS * 1000) break;
  }
  await sending;
  const cpuAfter = nodeCpu(testnet);
  const ownCpu = process.cpuUsage(ownCpuBefore);
  const elapsedSeconds = (endedAt - startedAt) / 1000;
  const blocks = hexToNumber(await control.call("eth_blockNumber")) - startBlock;
  control.close();
  for (const client of clients) client.close();
  return {
    sent: queue.length,
    rejected,
    mined,
    sendSeconds: (sendsDoneAt - startedAt) / 1000,
    elapsedSeconds,
    startedAt,
    endedAt,
    cores: coreShares(cpuBefore, cpuAfter, elapsedSeconds),
    loadGeneratorCores: (ownCpu.user + ownCpu.system) / 1e6 / elapsedSeconds,
    blocks,
  };
}

/** Block hashes by number on node 0, `from` to its head. */
async function canonicalChain(testnet: BenchTestnet, from: number): Promise<Map<number, string>> {
  const rpc = new RpcClient(testnet.nodes[0]!.url, { maxSockets: 1 });
  try {
    const head = hexToNumber(await rpc.call("eth_blockNumber"));
    const chain = new Map<number, string>();
    for (let start = from; start <= head; start += 100) {
      const numbers = Array.from({ length: Math.min(100, head - start + 1) }, (_, i) => start + i);
      const blocks = await rpc.batch(
        numbers.map((n) => ({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] })),
      );
      blocks.forEach((b, i) => {
        const block = b.result as { hash: string } | null;
        if (block) chain.set(numbers[i]!, block.hash);
      });
    }
    return chain;
  } finally {
    rpc.close();
  }
}

const ms = (v: number) => `${v.toFixed(0)} ms`;
const s2 = (v: number) => `${v.toFixed(2)} s`;

async function runNetwork(ctx: ScenarioContext): Promise<Measurement> {
  const testnet = await startTestnet(VALIDATORS, BLOCK_TIME_SECONDS);
  ctx.log(`testnet: ${testnet.command}`);
  ctx.log(`nodes: ${testnet.nodes.map((n) => `${n.name} pid ${n.pid} ${n.url}`).join(", ")}`);
  let heads: HeadsWatch | undefined;
  let finality: FinalityWatch | undefined;
  try {
    heads = await HeadsWatch.start(testnet.nodes);
    finality = new FinalityWatch(testnet.nodes[0]!);
    const idleSeconds = Math.max(20, ctx.settings.durationSeconds * 2);
    const loadSeconds = Math.max(30, ctx.settings.durationSeconds * 3);
    // Past the start (every validator switched on together), then an idle window.
    await sleep(5_000);
    const idleFrom = performance.now();
    const cpuIdleBefore = nodeCpu(testnet);
    await sleep(idleSeconds * 1000);
    const idleTo = performance.now();
    const idleCores = coreShares(cpuIdleBefore, nodeCpu(testnet), (idleTo - idleFrom) / 1000);
    const load = await runLoad(ctx, testnet, loadSeconds);
    // Let finality catch up with the last loaded blocks before reading the chain.
    await sleep(3_000);
    const chain = await canonicalChain(testnet, 1);
    const idle = {
      propagation: heads.propagation(idleFrom, idleTo),
      finality: finality.lag(heads, chain, idleFrom, idleTo),
    };
    const loaded = {
      propagation: heads.propagation(load.startedAt, load.endedAt),
      finality: finality.lag(heads, chain, load.startedAt, load.endedAt),
    };
    const minedTps = load.mined / load.elapsedSeconds;
    const lost = load.sent - load.mined;
    const verdict = minedTps >= TARGET_TPS && lost === 0 ? "meets" : "misses";
    const cores = (shares: (number | undefined)[]) =>
      shares.map((c) => (c === undefined ? "?" : `${Math.round(c * 100)}%`)).join("/");
    const notes = [
      `${load.mined}/${load.sent} transfers mined in ${load.elapsedSeconds.toFixed(1)} s (offered ${OFFERED_TPS} tx/s for ${load.sendSeconds.toFixed(1)} s, ${load.blocks} blocks): ${verdict} >= ${TARGET_TPS} tx/s, none lost`,
      `propagation to every peer idle p50 ${ms(idle.propagation.toAll.p50)} p99 ${ms(idle.propagation.toAll.p99)}; loaded p50 ${ms(loaded.propagation.toAll.p50)} p99 ${ms(loaded.propagation.toAll.p99)}`,
      `finality lag idle p50 ${idle.finality.blocks.p50} / p99 ${idle.finality.blocks.p99} blocks, ${s2(idle.finality.seconds.p50)} / ${s2(idle.finality.seconds.p99)}; loaded ${loaded.finality.blocks.p50} / ${loaded.finality.blocks.p99} blocks, ${s2(loaded.finality.seconds.p50)} / ${s2(loaded.finality.seconds.p99)}`,
      `node CPU (share of one core, nodes 0-3) idle ${cores(idleCores)}, loaded ${cores(load.cores)}; load generator ${Math.round(load.loadGeneratorCores * 100)}%`,
    ];
    if (load.rejected > 0) notes.push(`${load.rejected} sends rejected`);
    return {
      unit: "tx/s",
      throughput: minedTps,
      p50Ms: idle.propagation.toAll.p50,
      p99Ms: idle.propagation.toAll.p99,
      errors: lost + load.rejected,
      notes,
      details: {
        testnetCommand: testnet.command,
        validators: VALIDATORS,
        blockTimeSeconds: BLOCK_TIME_SECONDS,
        idleSeconds,
        loadSeconds,
        offeredTps: OFFERED_TPS,
        targetTps: TARGET_TPS,
        senders: SENDERS,
        inFlight: IN_FLIGHT,
        load: { ...load, lost },
        idleCores,
        idle,
        loaded,
      },
    };
  } finally {
    heads?.close();
    await finality?.close();
    await testnet.stop();
  }
}

/**
 * The network scenario (Strata only). It starts its own four-process testnet; the shared instant
 * node the runner provides stays idle meanwhile.
 */
export const network: Scenario = {
  name: "network",
  description:
    "strata testnet --validators 4 --block-time 1: block propagation, finality lag, transfers round-robin to all four nodes (target >= 500 tx/s mined, none lost), CPU per node.",
  node: "shared",
  modes: (target) => (target === "strata" ? ["instant"] : []),
  remark: () =>
    "own four-process testnet, 1 s blocks; latency columns: block propagation to every peer (idle)",
  run: runNetwork,
};
