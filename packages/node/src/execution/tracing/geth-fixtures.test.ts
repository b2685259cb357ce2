import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type GethTracerFixture, runGethFixture } from "./geth-fixture.js";

const TESTDATA = join(import.meta.dirname, "testdata");
const TRACER_OF: Record<string, string> = {
  call_tracer: "callTracer",
  call_tracer_withLog: "callTracer",
  prestate_tracer: "prestateTracer",
  prestate_tracer_with_diff_mode: "prestateTracer",
};

/** geth's fixtures mix checksummed and lowercase hex; the JSON-RPC output is lowercase. */
function lowercased(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (_key, v) => (typeof v === "string" ? v.toLowerCase() : v));
}

for (const [dir, tracer] of Object.entries(TRACER_OF)) {
  describe(`geth's ${dir} fixtures`, () => {
    for (const file of readdirSync(join(TESTDATA, dir)).filter((f) => f.endsWith(".json"))) {
      it(`matches geth on ${file}`, async () => {
        const fixture = JSON.parse(readFileSync(join(TESTDATA, dir, file), "utf8")) as GethTracerFixture;
        const result = await runGethFixture(fixture, tracer);
        expect(lowercased(result)).toEqual(lowercased(fixture.result));
      });
    }
  });
}
