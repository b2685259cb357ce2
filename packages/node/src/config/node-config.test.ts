import { describe, expect, it } from "vitest";
import { createNodeConfig, DEFAULTS, testConfig } from "./node-config.js";
import { NodeConfigError } from "./node-config-schema.js";

describe("node settings", () => {
  it("fills defaults that pass their own validation", () => {
    const config = createNodeConfig({ datadir: null });
    expect(config.rpc.port).toBe(DEFAULTS.rpcPort);
    expect(config.mining.mode).toBe("instant");
    expect(testConfig({ rpc: { evmTimeoutMs: Number.POSITIVE_INFINITY } }).rpc.evmTimeoutMs).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it("names the bad setting and the values it takes", () => {
    const cases: [Parameters<typeof testConfig>[0], RegExp][] = [
      [{ rpc: { port: 70_000 } }, /^rpc\.port: expected an integer in 0\.\.65535$/],
      [{ rpc: { maxBatch: 0 } }, /^rpc\.maxBatch: expected an integer in 1\.\./],
      [{ rpc: { evmTimeoutMs: -1 } }, /^rpc\.evmTimeoutMs: expected a positive number of milliseconds/],
      [{ rpc: { gasCap: -1n } }, /^rpc\.gasCap: expected at least 0 wei$/],
      [{ txpool: { maxPerSender: 1.5 } }, /^txpool\.maxPerSender: expected an integer/],
      [{ mining: { mode: "sometimes" as never } }, /^mining\.mode: expected instant \| interval \| manual$/],
      [
        { logLevel: "loud" },
        /^logLevel: expected trace \| debug \| info \| warn \| error \| fatal \| silent$/,
      ],
      [{ follow: "ftp://example.org" }, /^follow: expected an http:\/\/ or https:\/\/ JSON-RPC URL$/],
      [{ validator: { key: new Uint8Array(31) } }, /^validator\.key: expected 32 bytes$/],
      [{ p2p: { port: -1 } }, /^p2p\.port: expected an integer in 0\.\.65535$/],
    ];
    for (const [overrides, message] of cases) {
      expect(() => testConfig(overrides)).toThrow(NodeConfigError);
      expect(() => testConfig(overrides)).toThrow(message);
    }
  });
});
