import { DEFAULTS } from "@strata/node";
import { describe, expect, it } from "vitest";
import { parseFlags } from "../flags.js";
import { NODE_FLAGS, NODE_HELP, nodeConfigFromFlags } from "./node.js";

const config = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  nodeConfigFromFlags(parseFlags(argv, NODE_FLAGS, { env }));

describe("strata node --txpool.*", () => {
  it("keeps geth's defaults: 512/20,000 pending, 64/1,024 queued, queued kept 3 h", () => {
    expect(config([]).txpool).toMatchObject({
      maxPerSender: DEFAULTS.maxPerSender,
      maxTotal: DEFAULTS.maxTotal,
      maxQueuedPerSender: 64,
      maxQueuedTotal: 1024,
      queuedLifetimeMs: 3 * 3_600_000,
    });
    expect([DEFAULTS.maxPerSender, DEFAULTS.maxTotal]).toEqual([512, 20_000]);
  });

  it("sets each limit from a flag or its STRATA_ variable", () => {
    const pool = config(
      ["--txpool.accountslots", "16", "--txpool.globalslots", "5000", "--txpool.accountqueue", "8"],
      { STRATA_TXPOOL_GLOBALQUEUE: "256", STRATA_TXPOOL_LIFETIME: "90m" },
    ).txpool;
    expect(pool).toMatchObject({
      maxPerSender: 16,
      maxTotal: 5000,
      maxQueuedPerSender: 8,
      maxQueuedTotal: 256,
      queuedLifetimeMs: 90 * 60_000,
    });
    expect(config(["--txpool.lifetime", "3h"]).txpool.queuedLifetimeMs).toBe(3 * 3_600_000);
    expect(config(["--txpool.lifetime", "0"]).txpool.queuedLifetimeMs).toBe(Number.POSITIVE_INFINITY);
  });

  it("refuses a count below 1 or a lifetime that is not a duration", () => {
    expect(() => config(["--txpool.globalqueue", "0"])).toThrow(/--txpool.globalqueue: expected an integer/);
    expect(() => config(["--txpool.accountslots", "many"])).toThrow(/--txpool.accountslots/);
    expect(() => config(["--txpool.lifetime", "3d"])).toThrow(/--txpool.lifetime: expected a duration/);
  });

  it("documents the flags in --help", () => {
    for (const flag of ["accountslots", "globalslots", "accountqueue", "globalqueue", "lifetime"])
      expect(NODE_HELP).toContain(`--txpool.${flag}`);
  });
});
