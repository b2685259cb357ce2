import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

/** Tests that start a network of node processes: they run alone, after every other test file. */
const MULTI_PROCESS = [
  "packages/cli/src/e2e/testnet.test.ts",
  "packages/cli/src/e2e/testnet-long-chain.test.ts",
];

/**
 * Tests that measure how long something takes on the node (a thread kept answering, a deadline met),
 * drive a browser or a whole stack, or kill processes on purpose: one file at a time, after the rest,
 * so that no other test file competes with them for the two cores.
 */
const SERIAL = [
  "packages/cli/src/e2e/quick-start.test.ts",
  "packages/explorer/src/e2e/explorer.test.ts",
  "packages/gateway/src/e2e/hostile-input.test.ts",
  "packages/node/src/consensus/finality.e2e.test.ts",
  "packages/node/src/e2e/hostile-execution.test.ts",
  "packages/node/src/e2e/hostile-txpool.test.ts",
  "packages/node/src/execution/worker/call-worker-caches.test.ts",
  "packages/node/src/execution/worker/call-worker-pool.test.ts",
  "packages/node/src/producer/block-producer.test.ts",
  "packages/node/src/producer/mining-runs.test.ts",
  "packages/node/src/producer/pending-block.test.ts",
  "packages/node/src/storage/crash.test.ts",
];

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@strata\/([a-z-]+)$/, replacement: pkg("$1") },
      // The one entry point of a package beside its index (see packages/node/package.json "exports").
      {
        find: "@strata/node/worker-preload",
        replacement: fileURLToPath(
          new URL("./packages/node/src/execution/worker/worker-preload.ts", import.meta.url),
        ),
      },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // A worker keeps its modules from one test file to the next: loading the node's module graph
    // (@ethereumjs, viem, libp2p, the sources) once per worker instead of once per file saves most
    // of a run's import time. Test files share no module-level state: each starts what it uses.
    isolate: false,
    // Lets leak tests force a collection before measuring the heap.
    execArgv: ["--expose-gc"],
    projects: [
      {
        extends: true,
        // Two files at a time: most of a test's time is spent waiting on nodes, sockets and databases.
        test: {
          name: "strata",
          include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...MULTI_PROCESS, ...SERIAL],
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: { name: "serial", include: SERIAL, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      {
        // Four validators with 1 s blocks need the machine's cores to themselves: a test file
        // beside them starves a validator of its slots.
        extends: true,
        // One file at a time: each starts a network of its own.
        test: { name: "network", include: MULTI_PROCESS, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
