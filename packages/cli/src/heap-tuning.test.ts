import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { STRATA_V8_FLAGS } from "./heap-tuning.js";

const BIN = fileURLToPath(new URL("../bin/strata.js", import.meta.url));
const TUNING = fileURLToPath(new URL("../dist/heap-tuning.js", import.meta.url));

/** What V8 reports when a script sets flags: it names unknown flags on stderr and goes on. */
function flagComplaints(script: string): string {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(run.status).toBe(0);
  return run.stderr;
}

describe("V8 flags of the strata process", () => {
  it("are set by the entry point before it loads the rest of the CLI", () => {
    const imports = [...readFileSync(BIN, "utf8").matchAll(/^import .*?"([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports[0]).toBe("../dist/heap-tuning.js");
    expect(imports).toContain("../dist/main.js");
  });

  it("are flags this V8 knows", () => {
    expect(STRATA_V8_FLAGS).toContain("--no-allocation-site-pretenuring");
    expect(flagComplaints(`await import(${JSON.stringify(TUNING)});`)).toBe("");
    // The check does see a flag V8 does not know.
    expect(
      flagComplaints('import { setFlagsFromString } from "node:v8"; setFlagsFromString("--no-such-flag");'),
    ).toContain("unrecognized flag --no-such-flag");
  });
});
