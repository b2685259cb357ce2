import { describe, expect, it } from "vitest";
import { clientAddress } from "./caller.js";

describe("clientAddress (--trust-proxy N)", () => {
  it("takes the client from N places from the right, never from what the client wrote", () => {
    // client 203.0.113.7 -> proxy 10.0.0.1 -> proxy 10.0.0.2 -> gateway; the client wrote "1.2.3.4".
    const forwarded = "1.2.3.4, 203.0.113.7, 10.0.0.1";
    expect(clientAddress("10.0.0.2", forwarded, 2)).toBe("203.0.113.7");
    expect(clientAddress("10.0.0.2", forwarded, 1)).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.2", forwarded, 0)).toBe("10.0.0.2");
    // Fewer entries than hops: the leftmost one (a request that did not come through every proxy).
    expect(clientAddress("10.0.0.2", "203.0.113.7", 3)).toBe("203.0.113.7");
    expect(clientAddress("10.0.0.2", undefined, 2)).toBe("10.0.0.2");
  });
});
