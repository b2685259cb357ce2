import { parseBody } from "@strata/protocol";
import { describe, expect, it } from "vitest";
import { FILTER_IDLE_MS, FilterQuota } from "./filter-quota.js";

/** A body as a client sends it, parsed as the servers parse it. */
function body(method: string, params: unknown[] = [], id = 1) {
  return parseBody(JSON.stringify({ jsonrpc: "2.0", id, method, params }), 1_000);
}

describe("FilterQuota", () => {
  it("forgets a filter its caller has not polled for the node's filter timeout, as the node does", async () => {
    let now = 0;
    const quota = new FilterQuota(2, () => now);
    let next = 0;
    const install = () =>
      quota.guard("ip:a", body("eth_newBlockFilter"), async () => ({
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: `0x${(next++).toString(16)}` }),
      }));
    const refused = /too many filters for this caller/;
    await install();
    await install();
    expect((await install()).body).toMatch(refused);
    // The first is polled a minute before the second would be dropped: only the second goes.
    now = FILTER_IDLE_MS - 60_000;
    await quota.guard("ip:a", body("eth_getFilterChanges", ["0x0"]), async () => ({ body: "[]" }));
    now = FILTER_IDLE_MS;
    expect((await install()).body).not.toMatch(refused);
    expect((await install()).body).toMatch(refused);
    expect(quota.size).toBe(2);
  });

  it("keeps nothing for an install the node refused", async () => {
    const quota = new FilterQuota(1);
    const refusedByNode = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32005, message: "too many filters" },
    });
    await quota.guard("ip:a", body("eth_newBlockFilter"), async () => ({ body: refusedByNode }));
    expect(quota.size).toBe(0);
    const answer = await quota.guard("ip:a", body("eth_newBlockFilter"), async () => ({
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x1" }),
    }));
    expect(answer.body).toContain('"result":"0x1"');
    expect(quota.size).toBe(1);
  });
});
