import { DEFAULTS } from "@strata/node";
import { describe, expect, it } from "vitest";
import { parseFlags } from "../flags.js";
import { NODE_FLAGS, nodeConfigFromFlags } from "./node.js";

const config = (...argv: string[]) => nodeConfigFromFlags(parseFlags(argv, NODE_FLAGS));

describe("strata node --rpc.call-workers", () => {
  it("sets the eth_call worker threads, 0 for none, one per core (up to 4) by default", () => {
    expect(config("--rpc.call-workers", "3").rpc.callWorkers).toBe(3);
    expect(config("--rpc.call-workers", "0").rpc.callWorkers).toBe(0);
    expect(config().rpc.callWorkers).toBe(DEFAULTS.callWorkers);
    expect(DEFAULTS.callWorkers).toBeGreaterThanOrEqual(1);
    expect(DEFAULTS.callWorkers).toBeLessThanOrEqual(4);
  });

  it("refuses a count that is not an integer in 0..64", () => {
    expect(() => config("--rpc.call-workers", "-1")).toThrow(/--rpc.call-workers/);
    for (const bad of ["65", "two", "1.5"])
      expect(() => config("--rpc.call-workers", bad)).toThrow(
        /--rpc.call-workers: expected an integer in 0..64/,
      );
  });
});

describe("strata node --rpc.evmtimeout", () => {
  it("sets the wall-clock limit of calls from a duration, 0 for none, 5 s by default", () => {
    expect(config().rpc.evmTimeoutMs).toBe(5000);
    expect(config("--rpc.evmtimeout", "500ms").rpc.evmTimeoutMs).toBe(500);
    expect(config("--rpc.evmtimeout", "12s").rpc.evmTimeoutMs).toBe(12_000);
    expect(config("--rpc.evmtimeout", "2m").rpc.evmTimeoutMs).toBe(120_000);
    expect(config("--rpc.evmtimeout", "7").rpc.evmTimeoutMs).toBe(7000);
    expect(config("--rpc.evmtimeout", "0").rpc.evmTimeoutMs).toBe(Number.POSITIVE_INFINITY);
  });

  it("refuses what is not a duration of at most an hour", () => {
    for (const bad of ["1s5", "5h", "1.5s", "fast", "61m"])
      expect(() => config("--rpc.evmtimeout", bad)).toThrow(/--rpc.evmtimeout: expected a duration/);
  });
});

describe("strata node --no-demo", () => {
  it("runs the dev network's DePIN demo unless told not to, and never one on mainnet", () => {
    expect(config().demo).toMatchObject({ silentAfterBlocks: 30 });
    expect(config("--no-demo").demo).toBeNull();
    expect(config("--no-demo").reporter).not.toBeNull();
    expect(config("--network", "mainnet").demo).toBeNull();
  });
});

describe("strata node --rpc.tracetimeout and --rpc.testing", () => {
  it("sets the longest a trace may run from a duration, 5 s by default", () => {
    expect(config().rpc.traceTimeoutMs).toBe(5000);
    expect(config("--rpc.tracetimeout", "30s").rpc.traceTimeoutMs).toBe(30_000);
    expect(config("--rpc.tracetimeout", "0").rpc.traceTimeoutMs).toBe(Number.POSITIVE_INFINITY);
    expect(() => config("--rpc.tracetimeout", "soon")).toThrow(/--rpc.tracetimeout: expected a duration/);
  });

  it("serves testing_buildBlockV1 beyond dev networks only when asked", () => {
    expect(config().rpc.testingMethods).toBe(false);
    expect(config("--rpc.testing").rpc.testingMethods).toBe(true);
  });
});

describe("strata node --rpc.filters-per-ip", () => {
  it("caps the polling filters of one address, 256 by default, 0 for none", () => {
    expect(config().rpc.maxFiltersPerIp).toBe(256);
    expect(config("--rpc.filters-per-ip", "0").rpc.maxFiltersPerIp).toBe(0);
    expect(config("--rpc.filters-per-ip", "4096").rpc.maxFiltersPerIp).toBe(4096);
    expect(() => config("--rpc.filters-per-ip", "many")).toThrow(/--rpc.filters-per-ip: expected an integer/);
  });
});

describe("strata node WebSocket flags", () => {
  it("caps connections per address, 64 by default, 0 for none", () => {
    expect(config().rpc.maxWsConnectionsPerIp).toBe(64);
    expect(config("--rpc.ws-max-per-ip", "8").rpc.maxWsConnectionsPerIp).toBe(8);
    expect(config("--rpc.ws-max-per-ip", "0").rpc.maxWsConnectionsPerIp).toBe(0);
    expect(() => config("--rpc.ws-max-per-ip", "many")).toThrow(/--rpc.ws-max-per-ip: expected an integer/);
  });

  it("sets the ping interval (30 s) and idle timeout (5 min) from durations, 0 for none", () => {
    expect(config().rpc.wsPingIntervalMs).toBe(30_000);
    expect(config().rpc.wsIdleTimeoutMs).toBe(300_000);
    expect(config("--rpc.ws-ping-interval", "10s").rpc.wsPingIntervalMs).toBe(10_000);
    expect(config("--rpc.ws-idle-timeout", "2m").rpc.wsIdleTimeoutMs).toBe(120_000);
    expect(config("--rpc.ws-idle-timeout", "0").rpc.wsIdleTimeoutMs).toBe(Number.POSITIVE_INFINITY);
    expect(() => config("--rpc.ws-ping-interval", "often")).toThrow(
      /--rpc.ws-ping-interval: expected a duration/,
    );
  });
});
