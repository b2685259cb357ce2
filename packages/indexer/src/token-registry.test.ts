import { describe, expect, it } from "vitest";
import { TOKEN_REGISTRY_BOUND, TokenRegistry } from "./block-builder.js";

const address = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;

describe("TokenRegistry", () => {
  it("holds at most its bound of tokens and of non-tokens when it learns more, forgetting the oldest", () => {
    const registry = new TokenRegistry(1_000);
    for (let i = 0; i < 5_000; i++) registry.learn(address(i), i % 2 === 0);
    expect(registry.sizes).toEqual({ tokens: 1_000, notTokens: 1_000 });
    expect(registry.knows(address(4_998))).toBe(true);
    expect(registry.knows(address(4_999))).toBe(false);
    // Forgotten: probed again when next seen.
    expect(registry.knows(address(0))).toBeUndefined();
    expect(registry.knows(address(1))).toBeUndefined();
  });

  it("keeps the newest stored tokens up to its bound on reset, and the default bound is 100,000", () => {
    const registry = new TokenRegistry(10);
    registry.reset(Array.from({ length: 50 }, (_, i) => address(i)));
    expect(registry.sizes.tokens).toBe(10);
    expect(registry.knows(address(49))).toBe(true);
    expect(registry.knows(address(0))).toBeUndefined();
    expect(new TokenRegistry().bound).toBe(TOKEN_REGISTRY_BOUND);
    expect(TOKEN_REGISTRY_BOUND).toBe(100_000);
  });

  it("does not count an address learned twice", () => {
    const registry = new TokenRegistry(3);
    for (let i = 0; i < 10; i++) registry.learn(address(1), true);
    expect(registry.sizes.tokens).toBe(1);
  });
});
