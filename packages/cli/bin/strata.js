#!/usr/bin/env node
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
