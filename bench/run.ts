/**
 * Side-by-side benchmark of Strata and anvil: `npm run bench -- [flags]`.
 * See bench/README.md for the scenarios and flags.
 */
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { parseArgs } from "node:util";
import { gatewayOverhead } from "./gateway-overhead.js";
import {
  commandLine,
  computeRatios,
  cpuBusyPercent,
  machineInfo,
  markdownTable,
  type ResultRecord,
  writeJson,
} from "./report.js";
import { SCENARIOS as NODE_SCENARIOS, type Scenario } from "./scenarios/index.js";
import type { BenchSettings, Measurement } from "./scenarios/types.js";
import {
  killAllNodes,
  type MiningMode,
  miningLabel,
  type NodeHandle,
  REPO_ROOT,
  STRATA_CLI,
  startNode,
  TARGETS,
  type TargetName,
} from "./targets.js";

/** The node scenarios, then the gateway's (it runs on Strata only). */
const SCENARIOS: readonly Scenario[] = [...NODE_SCENARIOS, gatewayOverhead];

const USAGE = `Usage: node --import tsx bench/run.ts [options]   (or: npm run bench -- [options])

  --target anvil|strata|both   which nodes to benchmark (default: both)
  --duration SECONDS           measured seconds per load scenario (default: 10)
  --warmup SECONDS             unmeasured warm-up before each load run (default: 2)
  --connections N              concurrent HTTP connections (default: 64)
  --rounds N                   rounds of each read scenario, alternating between the targets; the median
                               round is reported (default: 3)
  --only NAME[,NAME...]        run only these scenarios (${SCENARIOS.map((s) => s.name).join(", ")})
  --ingest-timeout SECONDS     give up waiting for ingest inclusion after this long (default: 120)
  -h, --help                   show this help

  --soak [SECONDS] [flags]     instead: hours of mixed load on Strata, memory and caches sampled each minute
                               (default 3600 s; --soak --help lists its flags)
  --indexer [flags]            instead: the indexer backfill benchmark`;

interface Options {
  targets: TargetName[];
  scenarios: Scenario[];
  settings: BenchSettings;
}

function positiveNumber(name: string, raw: string | undefined, fallback: number, integer = false): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`--${name} must be a positive ${integer ? "integer" : "number"}, got "${raw}"`);
  }
  return value;
}

function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      rounds: { type: "string" },
      only: { type: "string" },
      "ingest-timeout": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    console.log(USAGE);
    return undefined;
  }
  const target = values.target ?? "both";
  if (target !== "both" && !TARGETS.includes(target as TargetName)) {
    throw new Error(`--target must be anvil, strata or both, got "${target}"`);
  }
  const targets = target === "both" ? [...TARGETS] : [target as TargetName];

  let scenarios = [...SCENARIOS];
  if (values.only !== undefined) {
    const wanted = values.only.split(",").map((s) => s.trim());
    const unknown = wanted.filter((w) => !SCENARIOS.some((s) => s.name === w));
    if (unknown.length > 0) {
      throw new Error(
        `unknown scenario(s) ${unknown.join(", ")}; have ${SCENARIOS.map((s) => s.name).join(", ")}`,
      );
    }
    scenarios = SCENARIOS.filter((s) => wanted.includes(s.name));
  }
  const warmup = values.warmup === "0" ? 0 : positiveNumber("warmup", values.warmup, 2);
  return {
    targets,
    scenarios,
    settings: {
      durationSeconds: positiveNumber("duration", values.duration, 10),
      warmupSeconds: warmup,
      connections: positiveNumber("connections", values.connections, 64, true),
      rounds: positiveNumber("rounds", values.rounds, 3, true),
      ingestTimeoutSeconds: positiveNumber("ingest-timeout", values["ingest-timeout"], 120),
    },
  };
}

function summarize(m: Measurement): string {
  const p = (v: number | null) => (v === null ? "–" : `${v.toFixed(2)} ms`);
  const rate = m.throughput.toLocaleString("en-US", { maximumFractionDigits: m.throughput < 100 ? 1 : 0 });
  return `${rate} ${m.unit}, p50 ${p(m.p50Ms)}, p99 ${p(m.p99Ms)}, errors ${m.errors}`;
}

/** Scenarios that share one node per target and mining mode, or one that starts its own. */
interface Stage {
  readonly mode: MiningMode;
  readonly scenarios: Scenario[];
  readonly node: "shared" | "fresh";
}

/** Run order: shared-node scenarios grouped by mining mode, then each fresh-node scenario per mode. */
function plan(targets: readonly TargetName[], scenarios: readonly Scenario[]): Stage[] {
  const stages: Stage[] = [];
  const modesOf = (s: Scenario) => [...new Set(targets.flatMap((t) => s.modes(t)))];
  for (const s of scenarios.filter((x) => x.node === "shared")) {
    for (const mode of modesOf(s)) {
      let stage = stages.find((g) => g.mode === mode);
      if (!stage) {
        stage = { mode, scenarios: [], node: "shared" };
        stages.push(stage);
      }
      stage.scenarios.push(s);
    }
  }
  for (const s of scenarios.filter((x) => x.node === "fresh")) {
    for (const mode of modesOf(s)) stages.push({ mode, scenarios: [s], node: "fresh" });
  }
  return stages;
}

/** The targets that run `scenario` in `mode`, in the order of round `round` (reversed every other round). */
function roundOrder(targets: readonly TargetName[], scenario: Scenario, mode: MiningMode, round: number) {
  const taking = targets.filter((t) => scenario.modes(t).includes(mode));
  return round % 2 === 0 ? taking : taking.reverse();
}

/** The round with the median throughput, noting every round's figure when there were several. */
function medianRound(measurements: Measurement[]): Measurement {
  const sorted = [...measurements].sort((a, b) => a.throughput - b.throughput);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  if (measurements.length === 1) return median;
  const figures = measurements.map((m) => Math.round(m.throughput));
  return {
    ...median,
    notes: [`median of ${measurements.length} rounds`, ...median.notes],
    details: { ...median.details, roundThroughputs: figures },
  };
}

async function main(): Promise<number> {
  // `--indexer [flags]`: the indexer backfill benchmark (bench/indexer.ts) instead of the node comparison.
  if (process.argv[2] === "--indexer") {
    const { runIndexerBenchmark } = await import("./indexer.js");
    return runIndexerBenchmark(process.argv.slice(3));
  }
  // `--soak [SECONDS] [flags]`: hours of mixed load, sampling memory and caches (bench/soak/).
  if (process.argv[2] === "--soak") {
    const { runSoak } = await import("./soak/run-soak.js");
    return runSoak(process.argv.slice(3));
  }
  const options = parseOptions(process.argv.slice(2));
  if (!options) return 0;
  const { targets, scenarios, settings } = options;
  const startedAt = new Date();
  const machine = machineInfo();
  const command = commandLine();

  console.log(`# Strata vs anvil benchmark`);
  console.log(`command: ${command}`);
  console.log(
    `machine: nproc ${machine.nproc}, ${machine.cpu}, ${machine.memoryGiB} GiB, ${machine.os}; ` +
      `node ${machine.node}; ${machine.anvil ?? "anvil: unavailable"}${machine.commit ? `; commit ${machine.commit}` : ""}`,
  );
  console.log(
    `settings: targets ${targets.join(", ")}; scenarios ${scenarios.map((s) => s.name).join(", ")}; ` +
      `${settings.durationSeconds}s measured + ${settings.warmupSeconds}s warm-up per load run, ` +
      `${settings.connections} connections, pipelining 1; ${settings.rounds} alternating rounds per read scenario`,
  );
  console.log("note: the load generator shares the machine (and its cores) with the node under test.");
  const busyAtStart = await cpuBusyPercent();
  if (busyAtStart > 20) {
    console.log(`!! the machine was ${busyAtStart}% busy before the run started; results will be noisy`);
  }
  const strataMissing = targets.includes("strata") && !existsSync(STRATA_CLI);
  if (strataMissing) {
    console.log(
      `!! Strata CLI not found at ${relative(REPO_ROOT, STRATA_CLI)}; Strata is skipped, anvil still runs`,
    );
  }
  console.log("");

  const records: ResultRecord[] = [];
  const nodeCommands: Record<string, string> = {};
  const cache = new Map<string, unknown>();
  const runnable = targets.filter((t) => !(t === "strata" && strataMissing));

  if (strataMissing) {
    for (const stage of plan(["strata"], scenarios)) {
      for (const s of stage.scenarios) {
        records.push({
          scenario: s.name,
          target: "strata",
          mode: stage.mode,
          mining: miningLabel("strata", stage.mode),
          status: "skipped",
          error: "Strata CLI not built",
        });
      }
    }
  }

  /** Starts a node, or records why it could not start for each scenario it was for. */
  const start = async (
    target: TargetName,
    mode: MiningMode,
    forScenarios: readonly Scenario[],
    ephemeral = false,
  ) => {
    const mining = miningLabel(target, mode);
    try {
      const node = await startNode(target, mode, ephemeral);
      nodeCommands[`${target}/${mode}`] = node.command;
      console.log(`   ${target} (${mining}) started pid ${node.pid}: ${node.command}`);
      return node;
    } catch (err) {
      const message = (err as Error).message;
      console.log(`!! ${target} (${mining}): ${message}`);
      for (const s of forScenarios) {
        if (s.modes(target).includes(mode))
          records.push({ scenario: s.name, target, mode, mining, status: "failed", error: message });
      }
      return undefined;
    }
  };

  /**
   * Runs `scenario` on each target's node, in alternating order when it takes several rounds. `nodes`
   * gives each target's node for a round: the same shared node every round, or (a `fresh` scenario)
   * one started for the round and stopped after it. A node that does not start in the first round
   * has its failure recorded by `start`; in a later one, the target's result is that failure.
   */
  const measure = async (
    scenario: Scenario,
    mode: MiningMode,
    nodes: (target: TargetName, round: number) => Promise<NodeHandle | undefined>,
    done: (node: NodeHandle) => Promise<void> = async () => {},
  ) => {
    const rounds = scenario.repeatable ? settings.rounds : 1;
    const taken = new Map<TargetName, Measurement[]>();
    const failed = new Map<TargetName, string>();
    const commands = new Map<TargetName, string>();
    for (let round = 0; round < rounds; round++) {
      for (const target of roundOrder(runnable, scenario, mode, round)) {
        if (failed.has(target)) continue;
        const node = await nodes(target, round);
        if (!node) {
          failed.set(target, "the node did not start");
          continue;
        }
        commands.set(target, node.command);
        const label =
          rounds > 1 ? `${scenario.name} ${target} ${round + 1}/${rounds}` : `${scenario.name} ${target}`;
        const log = (message: string) => console.log(`   [${label}] ${message}`);
        try {
          const measurement = await scenario.run({ node, settings, cache, log });
          log(summarize(measurement));
          taken.set(target, [...(taken.get(target) ?? []), measurement]);
        } catch (err) {
          const message = (err as Error).message;
          log(`FAILED: ${message}`);
          failed.set(target, message);
        } finally {
          await done(node);
        }
      }
    }
    for (const target of roundOrder(runnable, scenario, mode, 0)) {
      const command = commands.get(target);
      // A node that never started has its failure on record already (see `start`).
      if (command === undefined) continue;
      const base = {
        scenario: scenario.name,
        target,
        mode,
        mining: miningLabel(target, mode),
        nodeCommand: command,
      };
      const remark = scenario.remark?.(target, mode);
      const error = failed.get(target);
      const measurements = taken.get(target);
      if (error !== undefined || !measurements)
        records.push({ ...base, status: "failed", error: error ?? "no result" });
      else
        records.push({
          ...base,
          status: "ok",
          measurement:
            measurements.length > 1 && scenario.combine
              ? scenario.combine(measurements)
              : medianRound(measurements),
          ...(remark ? { remark } : {}),
        });
    }
  };

  for (const stage of plan(runnable, scenarios)) {
    const taking = runnable.filter((t) => stage.scenarios.some((s) => s.modes(t).includes(stage.mode)));
    console.log(`== ${stage.mode}: ${stage.scenarios.map((s) => s.name).join(", ")} on ${taking.join(", ")}`);
    if (stage.node === "shared") {
      // Every target's node stays up through the stage, so rounds can alternate between them.
      const nodes = new Map<TargetName, NodeHandle>();
      try {
        for (const target of taking) {
          const node = await start(target, stage.mode, stage.scenarios);
          if (node) nodes.set(target, node);
        }
        for (const scenario of stage.scenarios)
          await measure(scenario, stage.mode, async (target) => nodes.get(target));
      } finally {
        for (const node of nodes.values()) await node.stop();
      }
    } else {
      // A node of its own for every target and round: a repeatable scenario alternates its rounds
      // between the targets, one fresh node after the other.
      const [scenario] = stage.scenarios as [Scenario];
      await measure(
        scenario,
        stage.mode,
        (target, round) => start(target, stage.mode, round === 0 ? stage.scenarios : [], scenario.ephemeral),
        (node) => node.stop(),
      );
    }
    console.log("");
  }

  computeRatios(records);
  const table = markdownTable(records);
  console.log(table);
  console.log(
    "\nThroughput counts successful, validated responses (ingest: transactions mined per second, first send to last " +
      "inclusion; wsNewHeads: notifications delivered per second). Latency is per request (ingest: " +
      "eth_sendRawTransaction; wsNewHeads: delivery lag behind the first client to receive the same block).",
  );

  const finishedAt = new Date();
  const file = await writeJson(
    {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      command,
      machine: { ...machine, cpuBusyPercentAtStart: busyAtStart },
      settings,
      targets,
      scenarios: scenarios.map((s) => ({ name: s.name, description: s.description })),
      nodeCommands,
      results: records,
      markdown: table,
    },
    startedAt,
  );
  console.log(
    `\nresults: ${file} (${((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(0)} s total)`,
  );
  return records.some((r) => r.status === "failed") ? 1 : 0;
}

process.on("exit", killAllNodes);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping nodes`);
    killAllNodes();
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    killAllNodes();
    process.exitCode = 2;
  },
);
