import { type Abi, encodeDeployData, encodeFunctionData, type Hex, maxUint256, parseGwei } from "viem";
import { type DappArtifacts, dappArtifacts } from "../../packages/node/src/e2e/dapp/compile.js";
import { devAccounts } from "../accounts.js";
import { percentile } from "../load.js";
import { processCpuSeconds } from "../process-cpu.js";
import { hexToNumber, RpcClient, sleep } from "../rpc.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

/** Swaps per workflow run (each estimated, sent, waited for and traced). */
const SWAPS = 10;
/** Timed workflow runs per node, after the warm-up; the median run's wall time is reported. */
const RUNS = 3;
/**
 * Unmeasured runs after the first: a test suite runs workflow after workflow against one node, and
 * the JIT compiler needs several to settle (Strata's node is JavaScript; anvil is compiled ahead of
 * time). The first run after start is reported on its own.
 */
const WARMUP_RUNS = 9;
/** How often a client polls for a receipt after the first look (viem and ethers poll; tests use short intervals). */
const RECEIPT_POLL_MS = 10;
/** Single-block anvil_mine calls timed per node, and the size of the one large call. */
const MINE_CALLS = 20;
const MINE_MANY = 1_000;

const E18 = 10n ** 18n;
const MAX_FEE = parseGwei("100");
const TIP = parseGwei("1");

/** Per-method request latencies (ms) of one node, and how many receipt polls found nothing yet. */
class Recorder {
  readonly latencies = new Map<string, number[]>();
  emptyPolls = 0;

  constructor(readonly rpc: RpcClient) {}

  async call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    const started = performance.now();
    const result = await this.rpc.call<T>(method, params);
    const list = this.latencies.get(method) ?? [];
    list.push(performance.now() - started);
    this.latencies.set(method, list);
    return result;
  }

  p50(method: string): number | null {
    const list = this.latencies.get(method);
    return list?.length ? percentile(Float64Array.from(list).sort(), 50) : null;
  }
}

/**
 * What a dApp's test script does, the way viem and ethers do it: estimate (no block tag), sign, send,
 * poll for the receipt; then read views and trace the swaps.
 */
async function workflow(r: Recorder, artifacts: DappArtifacts, chainId: number): Promise<void> {
  const account = devAccounts()[0]!;
  let nonce = hexToNumber(await r.call("eth_getTransactionCount", [account.address, "pending"]));
  const transact = async (to: Hex | undefined, data: Hex) => {
    const request = { from: account.address, ...(to ? { to } : {}), data };
    // Twice the estimate: anvil estimates in a block that may keep the head's timestamp, where a
    // Uniswap pair skips writing its price accumulators; a swap mined in the next second writes them
    // (two slots set from zero the first time, 44,000 gas more than its estimate of about 88,000), so
    // it can run short of gas with half again its estimate (Strata's estimates hold: see
    // e2e/dapp/estimates.test.ts).
    const gas = BigInt(await r.call<string>("eth_estimateGas", [request])) * 2n;
    const raw = await account.signTransaction({
      chainId,
      type: "eip1559",
      nonce: nonce++,
      ...(to ? { to } : {}),
      data,
      gas,
      maxFeePerGas: MAX_FEE,
      maxPriorityFeePerGas: TIP,
    });
    const hash = await r.call<Hex>("eth_sendRawTransaction", [raw]);
    for (;;) {
      const receipt = await r.call<{ status: Hex; contractAddress: Hex | null; gasUsed: Hex } | null>(
        "eth_getTransactionReceipt",
        [hash],
      );
      if (receipt) {
        if (receipt.status !== "0x1")
          throw new Error(
            `transaction ${hash} (${data.slice(0, 10)}) failed: gas ${gas}, used ${BigInt(receipt.gasUsed)}`,
          );
        return { hash, contractAddress: receipt.contractAddress };
      }
      r.emptyPolls++;
      await sleep(RECEIPT_POLL_MS);
    }
  };
  const deploy = async (abi: Abi, bytecode: Hex, args: readonly unknown[] = []) =>
    (await transact(undefined, encodeDeployData({ abi, bytecode, args }))).contractAddress!;
  const send = (to: Hex, abi: Abi, functionName: string, args: readonly unknown[]) =>
    transact(to, encodeFunctionData({ abi, functionName, args }));
  const view = (to: Hex, abi: Abi, functionName: string, args: readonly unknown[] = []) =>
    r.call<Hex>("eth_call", [{ to, data: encodeFunctionData({ abi, functionName, args }) }, "latest"]);

  const { PlainToken, UniswapV2Factory, V2Driver } = artifacts;
  const tokenA = await deploy(PlainToken.abi, PlainToken.bytecode, ["A", 10n ** 30n]);
  const tokenB = await deploy(PlainToken.abi, PlainToken.bytecode, ["B", 10n ** 30n]);
  const factory = await deploy(UniswapV2Factory.abi, UniswapV2Factory.bytecode, [account.address]);
  await send(factory, UniswapV2Factory.abi, "createPair", [tokenA, tokenB]);
  const pair =
    `0x${(await view(factory, UniswapV2Factory.abi, "getPair", [tokenA, tokenB])).slice(26)}` as Hex;
  const driver = await deploy(V2Driver.abi, V2Driver.bytecode);
  for (const token of [tokenA, tokenB]) await send(token, PlainToken.abi, "approve", [driver, maxUint256]);
  await send(driver, V2Driver.abi, "addLiquidity", [pair, tokenA, tokenB, 10n ** 6n * E18, 10n ** 6n * E18]);
  const swaps: Hex[] = [];
  for (let i = 0; i < SWAPS; i++) {
    const tokenIn = i % 2 === 0 ? tokenA : tokenB;
    swaps.push((await send(driver, V2Driver.abi, "swapExactIn", [pair, tokenIn, 1000n * E18])).hash);
    await view(tokenA, PlainToken.abi, "balanceOf", [account.address]);
  }
  for (const hash of swaps) await r.call("debug_traceTransaction", [hash, { tracer: "callTracer" }]);
}

/** What one round of the scenario measured on one node (times in milliseconds). */
interface WorkflowFigures {
  /** The median timed run's wall time. */
  readonly medianWallMs: number;
  /** Every timed run's wall time. */
  readonly wallMs: readonly number[];
  readonly firstRunMs: number;
  /** The node's CPU (all threads) per timed run; undefined where /proc cannot tell. */
  readonly nodeCpuMsPerRun: number | undefined;
  readonly p50: {
    readonly eth_estimateGas: number | null;
    readonly debug_traceTransaction: number | null;
    readonly anvil_mine: number | null;
  };
  readonly mineManyMs: number;
  readonly emptyReceiptPolls: number;
  readonly requestsPerRun: number;
  /** Requests per method over the timed runs and the single-block `anvil_mine` calls. */
  readonly requests: Readonly<Record<string, number>>;
  readonly p50ByMethod: Readonly<Record<string, number | null>>;
}

const fmt = (v: number | null) => (v === null ? "–" : v.toFixed(2));

/** The median of the values given (null when there are none). */
function median(values: readonly (number | null | undefined)[]): number | null {
  const known = values.filter((v): v is number => typeof v === "number");
  return known.length === 0 ? null : percentile(Float64Array.from(known).sort(), 50);
}

/**
 * The measurement of one round's figures, or of several rounds' (`rounds`): then each figure is the
 * median of the rounds' own, and the JSON keeps every round's.
 */
function measurementOf(f: WorkflowFigures, rounds?: readonly WorkflowFigures[]): Measurement {
  const { p50 } = f;
  return {
    unit: "runs/s",
    throughput: 1000 / f.medianWallMs,
    p50Ms: p50.eth_estimateGas,
    p99Ms: null,
    errors: 0,
    notes: [
      ...(rounds ? [`median of ${rounds.length} rounds, figure by figure`] : []),
      `workflow ${(f.medianWallMs / 1000).toFixed(2)} s, median of ${RUNS} runs of ${f.requestsPerRun} requests after ${WARMUP_RUNS + 1} untimed; p50 column: eth_estimateGas`,
      `first run on the fresh node ${(f.firstRunMs / 1000).toFixed(2)} s`,
      ...(f.nodeCpuMsPerRun === undefined ? [] : [`node CPU ${f.nodeCpuMsPerRun.toFixed(0)} ms per run`]),
      `p50 eth_estimateGas ${fmt(p50.eth_estimateGas)} ms, debug_traceTransaction ${fmt(p50.debug_traceTransaction)} ms, anvil_mine ${fmt(p50.anvil_mine)} ms`,
      `anvil_mine ${MINE_MANY} blocks ${f.mineManyMs.toFixed(0)} ms`,
      `${f.emptyReceiptPolls} receipt polls found nothing`,
    ],
    details: { ...f, ...(rounds ? { rounds } : {}) },
  };
}

/**
 * A dApp test run replayed on each node: deploy two tokens, a Uniswap v2 factory (the published
 * build), a pair and a driver, approve, add liquidity, then estimate, send, wait for and read ten
 * swaps, and trace them with callTracer; three timed runs after ten untimed ones (the first of
 * which is reported too). Then anvil_mine: single blocks, and 1,000 empty blocks in one call.
 * Strata runs with `--ephemeral` (its chain in memory, as anvil's is).
 * Reports runs per second (the Strata/anvil column is the inverse of the wall-time ratio) and the
 * per-method latency of eth_estimateGas, debug_traceTransaction and anvil_mine.
 */
export const dappWorkflow: Scenario = {
  name: "dappWorkflow",
  description: "deploy/approve/swap/estimate/receipt/trace workflow with Uniswap v2, then anvil_mine",
  modes: () => ["instant"],
  node: "fresh",
  // A test suite's chain lives for the run: anvil keeps it in memory, and so does Strata here.
  ephemeral: true,
  // Rounds alternate between anvil and Strata, each on a fresh node: a slow spell of the machine
  // during one target's run would otherwise land on that target alone.
  repeatable: true,
  async run(ctx: ScenarioContext): Promise<Measurement> {
    const artifacts = (ctx.cache.get("dapp-artifacts") as DappArtifacts | undefined) ?? dappArtifacts();
    ctx.cache.set("dapp-artifacts", artifacts);
    const r = new Recorder(new RpcClient(ctx.node.url));
    const chainId = hexToNumber(await r.rpc.call("eth_chainId"));
    // The first run on the fresh node, then the warm-up, both untimed but for the first's wall time.
    const firstStarted = performance.now();
    await workflow(new Recorder(r.rpc), artifacts, chainId);
    const firstMs = performance.now() - firstStarted;
    for (let run = 0; run < WARMUP_RUNS; run++) await workflow(new Recorder(r.rpc), artifacts, chainId);
    const walls: number[] = [];
    const cpuAtStart = processCpuSeconds(ctx.node.pid);
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      await workflow(r, artifacts, chainId);
      walls.push(performance.now() - started);
    }
    const cpuAtEnd = processCpuSeconds(ctx.node.pid);
    // The node's CPU (every thread) per timed run: unlike wall time, hardly moved by other load.
    const cpuMsPerRun =
      cpuAtStart === undefined || cpuAtEnd === undefined
        ? undefined
        : ((cpuAtEnd - cpuAtStart) * 1000) / RUNS;
    walls.sort((a, b) => a - b);
    const wallMs = walls[Math.floor(walls.length / 2)]!;
    for (let i = 0; i < MINE_CALLS; i++) await r.call("anvil_mine", ["0x1"]);
    const mineStarted = performance.now();
    await r.rpc.call("anvil_mine", [`0x${MINE_MANY.toString(16)}`]);
    const mineManyMs = performance.now() - mineStarted;
    const figures: WorkflowFigures = {
      medianWallMs: wallMs,
      wallMs: walls,
      firstRunMs: firstMs,
      nodeCpuMsPerRun: cpuMsPerRun,
      p50: {
        eth_estimateGas: r.p50("eth_estimateGas"),
        debug_traceTransaction: r.p50("debug_traceTransaction"),
        anvil_mine: r.p50("anvil_mine"),
      },
      mineManyMs,
      emptyReceiptPolls: r.emptyPolls,
      requestsPerRun: Math.round(
        ([...r.latencies.values()].reduce((n, list) => n + list.length, 0) - MINE_CALLS) / RUNS,
      ),
      requests: Object.fromEntries([...r.latencies].map(([m, list]) => [m, list.length])),
      p50ByMethod: Object.fromEntries([...r.latencies.keys()].map((m) => [m, r.p50(m)])),
    };
    const { p50 } = figures;
    const cpu = cpuMsPerRun === undefined ? "" : `, node CPU ${cpuMsPerRun.toFixed(0)} ms/run`;
    ctx.log(
      `workflow ${wallMs.toFixed(0)} ms (median of ${RUNS} after ${WARMUP_RUNS + 1}; the first run ${firstMs.toFixed(0)} ms)${cpu}; p50 eth_estimateGas ${fmt(p50.eth_estimateGas)} ms, debug_traceTransaction ${fmt(p50.debug_traceTransaction)} ms, anvil_mine ${fmt(p50.anvil_mine)} ms; ${MINE_MANY} blocks in ${mineManyMs.toFixed(0)} ms`,
    );
    return measurementOf(figures);
  },
  combine(rounds: readonly Measurement[]): Measurement {
    const each = rounds.map((m) => m.details as unknown as WorkflowFigures);
    const of = (pick: (f: WorkflowFigures) => number | null | undefined) => median(each.map(pick));
    const methods = [...new Set(each.flatMap((f) => Object.keys(f.p50ByMethod)))];
    const figures: WorkflowFigures = {
      medianWallMs: of((f) => f.medianWallMs)!,
      wallMs: each.flatMap((f) => f.wallMs),
      firstRunMs: of((f) => f.firstRunMs)!,
      nodeCpuMsPerRun: of((f) => f.nodeCpuMsPerRun) ?? undefined,
      p50: {
        eth_estimateGas: of((f) => f.p50.eth_estimateGas),
        debug_traceTransaction: of((f) => f.p50.debug_traceTransaction),
        anvil_mine: of((f) => f.p50.anvil_mine),
      },
      mineManyMs: of((f) => f.mineManyMs)!,
      emptyReceiptPolls: of((f) => f.emptyReceiptPolls)!,
      requestsPerRun: of((f) => f.requestsPerRun)!,
      requests: each[0]!.requests,
      p50ByMethod: Object.fromEntries(methods.map((m) => [m, of((f) => f.p50ByMethod[m])])),
    };
    return measurementOf(figures, each);
  },
};
