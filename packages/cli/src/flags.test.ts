import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FlagSpec, parseFlags } from "./flags.js";

const SPECS: Record<string, FlagSpec> = {
  "rpc.port": { type: "string", description: "port" },
  fresh: { type: "boolean", description: "wipe" },
  upstream: { type: "string", description: "upstream", multiple: true },
  help: { type: "boolean", description: "help" },
};

function dirWith(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "strata-flags-"));
  writeFileSync(
    join(dir, "strata.config.json"),
    typeof config === "string" ? config : JSON.stringify(config),
  );
  return dir;
}

describe("parseFlags", () => {
  it("takes flag over environment over config file", () => {
    const cwd = dirWith({ node: { "rpc.port": 1111, fresh: true } });
    const env = { STRATA_RPC_PORT: "2222" };
    expect(parseFlags([], SPECS, { env: {}, command: "node", cwd })).toMatchObject({
      "rpc.port": "1111",
      fresh: true,
    });
    expect(parseFlags([], SPECS, { env, command: "node", cwd })["rpc.port"]).toBe("2222");
    expect(parseFlags(["--rpc.port", "3333"], SPECS, { env, command: "node", cwd })["rpc.port"]).toBe("3333");
  });

  it("reads only the command's own section", () => {
    const cwd = dirWith({ gateway: { upstream: ["http://a", "http://b"] } });
    expect(parseFlags([], SPECS, { env: {}, command: "node", cwd }).upstream).toBeUndefined();
    expect(parseFlags([], SPECS, { env: {}, command: "gateway", cwd }).upstream).toEqual([
      "http://a",
      "http://b",
    ]);
  });

  it("reads a file named by --config or STRATA_CONFIG, which must exist", () => {
    const dir = dirWith({ node: { "rpc.port": "4444" } });
    const file = join(dir, "strata.config.json");
    const elsewhere = mkdtempSync(join(tmpdir(), "strata-flags-"));
    expect(
      parseFlags(["--config", file], SPECS, { env: {}, command: "node", cwd: elsewhere })["rpc.port"],
    ).toBe("4444");
    expect(
      parseFlags([], SPECS, { env: { STRATA_CONFIG: file }, command: "node", cwd: elsewhere })["rpc.port"],
    ).toBe("4444");
    expect(() =>
      parseFlags(["--config", join(elsewhere, "missing.json")], SPECS, { env: {}, command: "node" }),
    ).toThrow(/missing\.json: no such file/);
  });

  it("names the bad field of a config file", () => {
    const bad = (config: unknown) => () =>
      parseFlags([], SPECS, { env: {}, command: "node", cwd: dirWith(config) });
    expect(bad({ node: { "rpc.prot": 1 } })).toThrow(/node\.rpc\.prot: unknown setting/);
    expect(bad({ node: { fresh: "yes" } })).toThrow(/node\.fresh: expected true or false/);
    expect(bad({ node: { "rpc.port": { n: 1 } } })).toThrow(/node\.rpc\.port: expected a string or a number/);
    expect(bad({ node: [] })).toThrow(/node: expected an object of settings/);
    expect(bad("{ not json")).toThrow(/strata\.config\.json: /);
  });

  it("refuses unknown flags and positionals with one line", () => {
    expect(() => parseFlags(["--nope"], SPECS, { env: {} })).toThrow(/Unknown option '--nope'/);
    expect(() => parseFlags(["extra"], SPECS, { env: {} })).toThrow(/positional/);
  });
});
