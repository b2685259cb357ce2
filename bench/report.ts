import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { join, relative } from "node:path";
import type { Measurement } from "./scenarios/index.js";
import { anvilVersion, BENCH_DIR, type MiningMode, REPO_ROOT, type TargetName } from "./targets.js";

export interface ResultRecord {
  scenario: string;
  target: TargetName;
  mode: MiningMode;
  /** Mining configuration as shown in the table. */
  mining: string;
  status: "ok" | "failed" | "skipped";
  measurement?: Measurement;
  error?: string;
  remark?: string;
  nodeCommand?: string;
  /** Strata throughput divided by anvil's for the same scenario. */
  ratio?: number;
}

export interface MachineInfo {
  nproc: number;
  cpu: string;
  memoryGiB: number;
  os: string;
  node: string;
  anvil: string | null;
  commit: string | null;
  loadAverage: number[];
}

/** Share of CPU time spent busy across all cores over a short window, in percent. */
export async function cpuBusyPercent(windowMs = 1_000): Promise<number> {
  const snapshot = () =>
    os.cpus().reduce(
      (acc, cpu) => {
        const t = cpu.times;
        acc.idle += t.idle;
        acc.total += t.user + t.nice + t.sys + t.irq + t.idle;
        return acc;
      },
      { idle: 0, total: 0 },
    );
  const before = snapshot();
  await new Promise((res) => setTimeout(res, windowMs));
  const after = snapshot();
  const total = after.total - before.total;
  return total > 0 ? Math.round((1 - (after.idle - before.idle) / total) * 100) : 0;
}

export function machineInfo(): MachineInfo {
  let commit: string | null = null;
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    }).trim();
  } catch {
    // not a git checkout
  }
  return {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    anvil: anvilVersion(),
    commit,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** The command line as typed, e.g. `node --import tsx bench/run.ts --target anvil`. */
export function commandLine(): string {
  const script = process.argv[1]
    ? relative(process.cwd(), process.argv[1]) || process.argv[1]
    : "bench/run.ts";
  const direct = ["node", ...process.execArgv, script, ...process.argv.slice(2)].join(" ");
  if (process.env.npm_lifecycle_event === "bench") {
    const extra = process.argv.slice(2);
    return `npm run bench${extra.length > 0 ? ` -- ${extra.join(" ")}` : ""}  (${direct})`;
  }
  return direct;
}

/** Fill in `ratio` for Strata results: same scenario on anvil, same mining mode when there is one. */
export function computeRatios(records: ResultRecord[]): void {
  for (const r of records) {
    if (r.target !== "strata" || r.status !== "ok" || !r.measurement) continue;
    const anvil = records.filter(
      (a) => a.target === "anvil" && a.scenario === r.scenario && a.status === "ok",
    );
    const base = anvil.find((a) => a.mode === r.mode) ?? anvil[0];
    if (base?.measurement && base.measurement.throughput > 0) {
      r.ratio = r.measurement.throughput / base.measurement.throughput;
    }
  }
}

function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function rate(m: Measurement): string {
  const digits = m.throughput < 100 ? 1 : 0;
  return `${m.throughput.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${m.unit}`;
}

export function markdownTable(records: readonly ResultRecord[]): string {
  const rows = [
    "| Scenario | Target | Mining | Throughput | p50 (ms) | p99 (ms) | Errors | Strata/anvil | Notes |",
    "|---|---|---|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of records) {
    const m = r.measurement;
    const notes = [...(m?.notes ?? []), ...(r.remark ? [r.remark] : [])];
    if (r.status !== "ok") notes.unshift(`${r.status.toUpperCase()}: ${(r.error ?? "").split("\n")[0]}`);
    const ratio = r.ratio === undefined ? "–" : `${r.ratio.toFixed(2)}×`;
    const cells = [
      r.scenario,
      r.target,
      r.mining,
      m ? rate(m) : "–",
      ms(m?.p50Ms),
      ms(m?.p99Ms),
      m ? String(m.errors) : "–",
      ratio,
      notes.join("; ").replaceAll("|", "\\|"),
    ];
    rows.push(`| ${cells.join(" | ")} |`);
  }
  return rows.join("\n");
}

export async function writeJson(report: Record<string, unknown>, startedAt: Date): Promise<string> {
  const dir = join(BENCH_DIR, "results");
  await mkdir(dir, { recursive: true });
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
  const file = join(dir, `${stamp}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return relative(REPO_ROOT, file);
}
