import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeConfig } from "../../config/node-config.js";
import { datadirNetwork } from "../../import/datadir-network.js";
import { importChainFile } from "../../import/import-chain.js";
import { initDatadir } from "../../import/init-datadir.js";
import { createNode } from "../../node.js";
import { compareResponse } from "./compare.js";
import { type IoTest, loadIoTests } from "./io-file.js";

/** Options of {@link replayFixtures}. */
export interface ReplayOptions {
  /** The fixture folder: `genesis.json`, `chain.rlp` and one folder of `.io` files per method. */
  readonly fixtures: string;
  /** JSON-RPC port of the node under test; 0 (default) picks a free one. */
  readonly port?: number;
  /** Only tests whose name contains this text. */
  readonly filter?: string;
  /** Receives every progress line. */
  readonly out?: (line: string) => void;
}

/** The outcome of one test. */
export interface TestResult {
  readonly name: string;
  readonly method: string;
  readonly specOnly: boolean;
  readonly pass: boolean;
  readonly detail?: string;
}

/** Passes and failures of one method. */
export interface MethodTally {
  readonly method: string;
  passed: number;
  failed: number;
}

/** Everything a replay found. */
export interface ReplayReport {
  readonly results: readonly TestResult[];
  readonly methods: readonly MethodTally[];
  readonly passed: number;
  readonly failed: number;
  /** Failures among the tests that compare exact JSON (not `speconly`). */
  readonly exactFailed: number;
}

/**
 * Replays the execution-apis conformance tests as hive's rpc-compat simulator does: initialises a
 * temporary datadir from the fixture's genesis, imports its chain, starts a node on it and sends
 * every request of every `.io` file in name order, comparing each answer ({@link compareResponse}).
 * The datadir is removed afterwards.
 */
export async function replayFixtures(options: ReplayOptions): Promise<ReplayReport> {
  const out = options.out ?? (() => {});
  const tests = loadIoTests(options.fixtures).filter(
    (test) => options.filter === undefined || test.name.includes(options.filter),
  );
  const datadir = mkdtempSync(join(tmpdir(), "strata-conformance-"));
  try {
    const init = await initDatadir(join(options.fixtures, "genesis.json"), datadir);
    out(`genesis ${init.genesisHash} (chain id ${init.chainId})`);
    // The fixtures call testing_buildBlockV1, which a network without dev accounts serves only when
    // asked (as hive starts geth with its testing API on).
    const config = createNodeConfig({
      network: datadirNetwork(datadir),
      datadir,
      logLevel: "silent",
      rpc: { port: options.port ?? 0, testingMethods: true },
      // A replay of fixtures talks to no peer.
      p2p: { enabled: false },
    });
    const summary = await importChainFile(config.network, datadir, join(options.fixtures, "chain.rlp"));
    out(`imported ${summary.imported} blocks, head ${summary.head} ${summary.headHash}`);
    const node = await createNode(config);
    await node.start();
    try {
      const results: TestResult[] = [];
      for (const test of tests) results.push(await runTest(node.rpcUrl, test, out));
      return tally(results);
    } finally {
      await node.stop();
    }
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}

/** Longest wait for one answer; a node that does not answer fails the test instead of hanging the run. */
const REQUEST_TIMEOUT_MS = 60_000;

async function runTest(url: string, test: IoTest, out: (line: string) => void): Promise<TestResult> {
  for (const exchange of test.exchanges) {
    let actual: string;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: exchange.request,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      actual = await response.text();
    } catch (error) {
      actual = `request failed: ${(error as Error).message}`;
    }
    const verdict = compareResponse(test.method, actual, exchange.expected, test.specOnly);
    if (!verdict.pass) {
      out(`FAIL ${test.name}: ${verdict.detail}`);
      return {
        name: test.name,
        method: test.method,
        specOnly: test.specOnly,
        pass: false,
        detail: verdict.detail ?? "mismatch",
      };
    }
  }
  out(`pass ${test.name}${test.specOnly ? " (speconly)" : ""}`);
  return { name: test.name, method: test.method, specOnly: test.specOnly, pass: true };
}

function tally(results: readonly TestResult[]): ReplayReport {
  const methods = new Map<string, MethodTally>();
  for (const result of results) {
    const entry = methods.get(result.method) ?? { method: result.method, passed: 0, failed: 0 };
    if (result.pass) entry.passed++;
    else entry.failed++;
    methods.set(result.method, entry);
  }
  const passed = results.filter((r) => r.pass).length;
  return {
    results,
    methods: [...methods.values()].sort((a, b) => (a.method < b.method ? -1 : 1)),
    passed,
    failed: results.length - passed,
    exactFailed: results.filter((r) => !r.pass && !r.specOnly).length,
  };
}

/** The per-method table and totals of a report, as printed by `npm run conformance`. */
export function formatReport(report: ReplayReport): string[] {
  const width = Math.max(6, ...report.methods.map((m) => m.method.length));
  const lines = [`${"method".padEnd(width)}  pass  fail`];
  for (const m of report.methods) {
    lines.push(`${m.method.padEnd(width)}  ${String(m.passed).padStart(4)}  ${String(m.failed).padStart(4)}`);
  }
  const total = report.passed + report.failed;
  lines.push(
    `total: ${report.passed}/${total} passed, ${report.failed} failed (${report.exactFailed} exact-match)`,
  );
  return lines;
}
