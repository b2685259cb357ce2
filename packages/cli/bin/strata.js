#!/usr/bin/env node
// Evaluated before main.js loads anything: V8 flags must be set before the node allocates.
import "../dist/heap-tuning.js";
import { main } from "../dist/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`strata: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
