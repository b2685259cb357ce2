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

describe("strata node p2p flags", () => {
  it("keeps dev single-process without p2p and turns it on with a port or bootnodes", () => {
    expect(config().p2p).toMatchObject({ enabled: false });
    expect(config("--network", "mainnet").p2p).toMatchObject({ enabled: true, port: 30303, maxPeers: 50 });
    expect(config("--p2p.port", "24001").p2p).toMatchObject({ enabled: true, port: 24001 });
    expect(config("--network", "mainnet", "--p2p.port", "0").p2p).toMatchObject({ enabled: false });
    expect(config("--network", "mainnet", "--follow", "http://127.0.0.1:24009").p2p).toMatchObject({
      enabled: false,
    });
    const boot = "/ip4/127.0.0.1/tcp/24002/p2p/12D3KooWRLN1Gt4C2wXp87H5E8JdNwQsKTkAr7hS1kWNf3cCeMjE";
    const c = config(
      "--bootnodes",
      `${boot}, /ip4/10.0.0.2/tcp/30303`,
      "--p2p.max-peers",
      "7",
      "--p2p.addr",
      "127.0.0.1",
    );
    expect(c.p2p).toMatchObject({
      enabled: true,
      addr: "127.0.0.1",
      maxPeers: 7,
      bootnodes: [boot, "/ip4/10.0.0.2/tcp/30303"],
    });
  });

  it("reads STRATA_* variables and refuses bad values with a usage error", () => {
    const env = { STRATA_P2P_PORT: "24003", STRATA_BOOTNODES: "/ip4/127.0.0.1/tcp/24004" };
    const c = nodeConfigFromFlags(parseFlags([], NODE_FLAGS, { env, command: "node" }));
    expect(c.p2p).toMatchObject({ enabled: true, port: 24003, bootnodes: ["/ip4/127.0.0.1/tcp/24004"] });
    expect(() => config("--bootnodes", "127.0.0.1:30303")).toThrow(
      /--bootnodes: "127.0.0.1:30303" is not a multiaddr/,
    );
    expect(() => config("--p2p.port", "70000")).toThrow(/--p2p.port: expected an integer/);
    expect(() => config("--p2p.max-peers", "0")).toThrow(/--p2p.max-peers/);
  });
});
