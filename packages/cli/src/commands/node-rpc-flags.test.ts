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
