import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEV_V8_FLAGS, NODE_V8_FLAGS, tuneV8 } from "./v8-tuning.js";

const BIN = fileURLToPath(new URL("../bin/strata.js", import.meta.url));
const TUNING = fileURLToPath(new URL("../dist/v8-tuning.js", import.meta.url));

/** Runs a module script in a fresh process; V8 names flags it does not know on stderr and goes on. */
function run(script: string): { stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(child.status).toBe(0);
  return { stdout: child.stdout, stderr: child.stderr };
}

describe("V8 flags of a strata process", () => {
  it("are set for the node command, the tier-up budget also for the dev stack", () => {
    expect(tuneV8(["gateway", "--port", "0"])).toEqual([]);
    expect(tuneV8([])).toEqual([]);
    const { stdout, stderr } = run(
      `const { tuneV8 } = await import(${JSON.stringify(TUNING)}); console.log(tuneV8(["node", "--network", "dev"]).join(" ")); console.log(tuneV8(["dev"]).join(" "));`,
    );
    expect(stdout.trim().split("\n")).toEqual([NODE_V8_FLAGS.join(" "), DEV_V8_FLAGS.join(" ")]);
    expect(NODE_V8_FLAGS).toContain("--no-allocation-site-pretenuring");
    expect(NODE_V8_FLAGS).toContain("--interrupt-budget=32768");
    expect(DEV_V8_FLAGS).toEqual(["--interrupt-budget=32768"]);
    // Every flag is one this V8 knows: it would name an unknown one here, as it does below.
    expect(stderr).toBe("");
    expect(
      run('import { setFlagsFromString } from "node:v8"; setFlagsFromString("--no-such-flag");').stderr,
    ).toContain("unrecognized flag --no-such-flag");
  });

  it("are set by the entry point before it loads the CLI", () => {
    const source = readFileSync(BIN, "utf8");
    const tuned = source.indexOf("tuneV8(process.argv.slice(2));");
    expect(source).toMatch(/^import \{ tuneV8 \} from "\.\.\/dist\/v8-tuning\.js";$/m);
    expect(source).not.toMatch(/^import .*main\.js/m);
    expect(tuned).toBeGreaterThan(0);
    expect(source.indexOf('await import("../dist/main.js")')).toBeGreaterThan(tuned);
  });
});
