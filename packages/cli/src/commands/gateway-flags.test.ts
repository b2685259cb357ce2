import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openKeyStore } from "@strata/gateway";
import { afterAll, describe, expect, it, vi } from "vitest";
import { parseFlags } from "../flags.js";
import { explorerKey } from "./dev.js";
import { GATEWAY_FLAGS, gatewayConfigFromFlags, runGateway } from "./gateway.js";

const config = (...argv: string[]) =>
  gatewayConfigFromFlags(parseFlags(["--upstream", "http://127.0.0.1:8545", ...argv], GATEWAY_FLAGS));

describe("strata gateway flags", () => {
  const dir = mkdtempSync(join(tmpdir(), "strata-gateway-flags-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the admin token from a file, and refuses one shorter than 32 characters", () => {
    const file = join(dir, "admin-token");
    writeFileSync(file, `${"t".repeat(40)}\n`, { mode: 0o600 });
    expect(config("--admin-token-file", file).adminToken).toBe("t".repeat(40));
    expect(config("--admin-token", "u".repeat(32)).adminToken).toBe("u".repeat(32));
    expect(() => config("--admin-token", "too-short")).toThrow(/--admin-token: at least 32 characters/);
    writeFileSync(file, "short\n");
    expect(() => config("--admin-token-file", file)).toThrow(/at least 32 characters/);
    expect(() => config("--admin-token-file", join(dir, "missing"))).toThrow(/--admin-token-file/);
  });

  it("takes the admin token from STRATA_ADMIN_TOKEN, and warns when it is on the command line", async () => {
    const fromEnv = parseFlags(["--upstream", "http://127.0.0.1:8545"], GATEWAY_FLAGS, {
      env: { STRATA_ADMIN_TOKEN: "e".repeat(32) },
    });
    expect(gatewayConfigFromFlags(fromEnv).adminToken).toBe("e".repeat(32));
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      // Refused for its length after the warning: no gateway starts.
      await expect(
        runGateway(["--upstream", "http://127.0.0.1:8545", "--admin-token", "too-short"], () => {}),
      ).rejects.toThrow(/at least 32 characters/);
    } finally {
      stderr.mockRestore();
    }
    expect(written.join("")).toContain("--admin-token on the command line can be read by other users");
  });

  it("--trust-proxy takes a hop count", () => {
    expect(config("--trust-proxy", "2").trustProxy).toBe(2);
    expect(config().trustProxy).toBeUndefined();
    expect(() => config("--trust-proxy", "many")).toThrow(/--trust-proxy: expected a number of proxies/);
  });
});

describe("strata dev explorer key", () => {
  it("publishes a limited key to the explorer page, replacing the previous run's", async () => {
    const { store, close } = await openKeyStore(undefined, undefined);
    try {
      const first = await explorerKey(store);
      const second = await explorerKey(store);
      expect(await store.lookup(first)).toBeUndefined();
      const record = await store.lookup(second);
      expect(record?.tier).toBe("developer");
    } finally {
      await close();
    }
  });
});
