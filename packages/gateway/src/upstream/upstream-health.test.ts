import { describe, expect, it } from "vitest";
import { UpstreamHealth } from "./upstream-health.js";

describe("UpstreamHealth", () => {
  it("is down until a check passes, and down again once a request fails", () => {
    const health = new UpstreamHealth();
    expect(health.healthy).toBe(false);
    expect(health.passed(health.checkSent())).toBe(true);
    expect(health.healthy).toBe(true);
    health.failed();
    expect(health.healthy).toBe(false);
  });

  it("leaves the node down when a check sent before a failure passes after it", () => {
    const health = new UpstreamHealth();
    health.passed(health.checkSent());
    // A check goes out; a request fails (the node is stopping); then the check's answer comes back.
    const early = health.checkSent();
    health.failed();
    expect(health.passed(early)).toBe(false);
    expect(health.healthy).toBe(false);
    // A check sent after the failure decides.
    expect(health.passed(health.checkSent())).toBe(true);
    expect(health.healthy).toBe(true);
  });

  it("takes a check that passes after another check, sent later, failed as older news too", () => {
    const health = new UpstreamHealth();
    const first = health.checkSent();
    const second = health.checkSent();
    health.failed(); // the second check's failure
    expect(health.passed(first)).toBe(false);
    expect(health.healthy).toBe(false);
    expect(second).toBeGreaterThan(first);
  });
});
