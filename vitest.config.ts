import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

/** Tests that start a network of node processes: they run alone, after every other test file. */
const MULTI_PROCESS = [
  "packages/cli/src/e2e/testnet.test.ts",
  "packages/cli/src/e2e/testnet-long-chain.test.ts",
];

export default defineConfig({
  resolve: {
    alias: [{ find: /^@strata\/([a-z-]+)$/, replacement: pkg("$1") }],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Lets leak tests force a collection before measuring the heap.
    execArgv: ["--expose-gc"],
    projects: [
      {
        extends: true,
        test: {
          name: "strata",
          include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...MULTI_PROCESS],
        },
      },
      {
        // Four validators with 1 s blocks need the machine's cores to themselves: a test file
        // beside them starves a validator of its slots.
        extends: true,
        // One file at a time: each starts a network of its own.
        test: { name: "network", include: MULTI_PROCESS, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
