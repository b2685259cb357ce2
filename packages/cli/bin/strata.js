#!/usr/bin/env node
import { preloadNodeWorkers } from "../dist/early-workers.js";
import { tuneV8 } from "../dist/v8-tuning.js";

// V8 flags must be set before the command loads and allocates, so the CLI is loaded after them,
// and a node's execution workers load their code meanwhile.
tuneV8(process.argv.slice(2));
preloadNodeWorkers(process.argv.slice(2));
const { main } = await import("../dist/main.js");

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`strata: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
