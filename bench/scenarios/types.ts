import type { MiningMode, NodeHandle, TargetName } from "../targets.js";

export interface BenchSettings {
  /** Measured seconds per HTTP load scenario. */
  durationSeconds: number;
  /** Unmeasured seconds before each HTTP load run. */
  warmupSeconds: number;
  /** Concurrent HTTP connections for load scenarios. */
  connections: number;
  /** Rounds of each repeatable scenario, alternating between targets; the median round is reported. */
  rounds: number;
  /** Upper bound on waiting for ingest transactions to be mined. */
  ingestTimeoutSeconds: number;
}

export interface ScenarioContext {
  readonly node: NodeHandle;
  readonly settings: BenchSettings;
  /**
   * Survives across targets and node restarts within one run: for work that does
   * not depend on the node (compiling contracts, signing transactions).
   */
  readonly cache: Map<string, unknown>;
  log(message: string): void;
}

/** What one scenario measured on one node. */
export interface Measurement {
  unit: "req/s" | "tx/s" | "notif/s" | "runs/s";
  throughput: number;
  p50Ms: number | null;
  p99Ms: number | null;
  errors: number;
  /** Short remarks for the table's notes column. */
  notes: string[];
  /** Everything else worth keeping in the JSON output. */
  details: Record<string, unknown>;
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /**
   * Node configurations to measure on, per target. Most scenarios use `instant`
   * on both; ingest compares like-for-like block production as well, wsNewHeads
   * needs 1 s blocks and the eth_getLogs scenarios build their chain with `manual`.
   */
  modes(target: TargetName): readonly MiningMode[];
  /**
   * `shared`: runs on one long-lived node per (target, mode), after the
   * scenarios before it. `fresh`: gets a node of its own (state-changing loads).
   */
  readonly node: "shared" | "fresh";
  /**
   * A `fresh` node that keeps its chain in memory for the run (Strata's `--ephemeral`), as anvil
   * keeps its own and a test suite's throwaway chain does; otherwise Strata's datadir is on disk.
   */
  readonly ephemeral?: boolean;
  /**
   * True for loads that leave the node as they found it (reads), and for `fresh` scenarios short
   * enough to repeat (each round then starts a fresh node): they run in several rounds that
   * alternate between the targets, so a machine that speeds up or slows down during the run weighs
   * on both alike; the median round is reported.
   */
  readonly repeatable?: boolean;
  /**
   * The result of a repeatable scenario's rounds on one target; without it, the round with the
   * median throughput.
   */
  combine?(rounds: readonly Measurement[]): Measurement;
  /** Remark shown next to a target's results (e.g. why a mode was chosen). */
  remark?(target: TargetName, mode: MiningMode): string | undefined;
  run(ctx: ScenarioContext): Promise<Measurement>;
}
