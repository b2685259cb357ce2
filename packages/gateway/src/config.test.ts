import { describe, expect, it } from "vitest";
import { createGatewayConfig, GATEWAY_DEFAULTS, GatewayConfigError } from "./config.js";
import { formatUnits } from "./rpc/api-methods.js";

describe("gateway settings", () => {
  it("fills defaults and trims trailing slashes from upstreams", () => {
    const config = createGatewayConfig({ upstreams: ["http://127.0.0.1:8545/"] });
    expect(config.upstreams).toEqual(["http://127.0.0.1:8545"]);
    expect(config.port).toBe(4000);
    expect(config.corsOrigin).toBe("*");
    expect(config.maxBodyBytes).toBe(GATEWAY_DEFAULTS.maxBodyBytes);
    expect(config.limiterFailure).toBe("open");
    expect(config.redisUrl).toBeUndefined();
  });

  it("names the bad setting", () => {
    expect(() => createGatewayConfig({ upstreams: [] })).toThrow(GatewayConfigError);
    expect(() => createGatewayConfig({ upstreams: [] })).toThrow(/^upstreams: at least one upstream/);
    expect(() => createGatewayConfig({ upstreams: ["ftp://example.org"] })).toThrow(/^upstreams\.0: /);
    expect(() => createGatewayConfig({ upstreams: ["http://a"], redisUrl: "localhost:6379" })).toThrow(
      /^redisUrl: must start with redis:\/\//,
    );
    expect(() => createGatewayConfig({ upstreams: ["http://a"], port: 70_000 })).toThrow(/^port: /);
  });
});

describe("formatUnits", () => {
  it("writes wei as decimal STRA without trailing zeros", () => {
    expect(formatUnits(0n, 18)).toBe("0");
    expect(formatUnits(10_000n * 10n ** 18n, 18)).toBe("10000");
    expect(formatUnits(1_500_000_000_000_000_000n, 18)).toBe("1.5");
    expect(formatUnits(1n, 18)).toBe("0.000000000000000001");
  });
});
