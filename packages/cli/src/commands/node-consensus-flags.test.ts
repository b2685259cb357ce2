import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseFlags } from "../flags.js";
import { NODE_FLAGS, nodeConfigFromFlags } from "./node.js";

const dir = mkdtempSync(join(tmpdir(), "strata-cli-validator-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (...argv: string[]) => nodeConfigFromFlags(parseFlags(argv, NODE_FLAGS));

describe("strata node consensus flags", () => {
  it("reads --validator-key, --offline-validators and --follow", () => {
    const file = join(dir, "validator.key");
    writeFileSync(file, `0x${"11".repeat(32)}\n`);
    const c = config(
      "--validator-key",
      file,
      "--offline-validators",
      "0, 0xabcdefabcdefabcdefabcdefabcdefabcdefabcd",
      "--follow",
      "http://127.0.0.1:18701",
    );
    expect(c.validator?.key).toEqual(new Uint8Array(32).fill(0x11));
    expect(c.validator?.offline).toEqual(["0", "0xabcdefabcdefabcdefabcdefabcdefabcdefabcd"]);
    expect(c.follow).toBe("http://127.0.0.1:18701");
    expect(config().validator).toBeUndefined();
    expect(c.validator?.testDoubleSign).toBeUndefined();
  });

  it("reads the test-only --test.double-sign switch", () => {
    expect(config("--test.double-sign").validator).toEqual({ testDoubleSign: true });
  });

  it("refuses a bad key file and a bad follow URL with a usage error", () => {
    const bad = join(dir, "bad.key");
    writeFileSync(bad, "not a key");
    expect(() => config("--validator-key", bad)).toThrow(/must hold a 32-byte private key/);
    expect(() => config("--validator-key", join(dir, "missing.key"))).toThrow(/cannot read/);
    expect(() => config("--follow", "ftp://x")).toThrow(/--follow: expected an http/);
  });
});
