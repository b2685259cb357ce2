import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DEFAULTS } from "@strata/node";
import { dismissPreloadedWorkers, takePreloadedWorker } from "@strata/node/worker-preload";
import { describe, expect, it } from "vitest";
import { preloadNodeWorkers } from "./early-workers.js";

const BIN = fileURLToPath(new URL("../bin/strata.js", import.meta.url));

describe("execution workers started ahead of a node", () => {
  it("are started for the node command only, as many as a node starts by default", async () => {
    expect(preloadNodeWorkers(["gateway", "--port", "0"])).toBe(0);
    expect(preloadNodeWorkers([])).toBe(0);
    expect(preloadNodeWorkers(["node", "--help"])).toBe(0);
    expect(takePreloadedWorker()).toBeUndefined();
    const count = preloadNodeWorkers(["node", "--network", "dev"]);
    expect(count).toBe(DEFAULTS.callWorkers);
    await dismissPreloadedWorkers();
    expect(takePreloadedWorker()).toBeUndefined();
  });

  it("are started by the entry point before it loads the CLI", () => {
    const source = readFileSync(BIN, "utf8");
    const preloaded = source.indexOf("preloadNodeWorkers(process.argv.slice(2));");
    expect(preloaded).toBeGreaterThan(0);
    expect(source.indexOf('await import("../dist/main.js")')).toBeGreaterThan(preloaded);
  });
});
