import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";

/*
 * Hostile input to the node's JSON-RPC port: single requests chosen to fill shared state or to make
 * the node build an unbounded answer.
 */

interface Answer {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

async function batch(
  url: string,
  calls: readonly { method: string; params?: unknown[] }[],
): Promise<Answer[]> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(
      calls.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params ?? [] })),
    ),
  });
  return (await res.json()) as Answer[];
}

describe("node port against hostile requests", () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("caps the filters one caller installs (-32005) below the node's cap", async () => {
    const answers = await batch(
      node.url,
      Array.from({ length: 300 }, () => ({ method: "eth_newBlockFilter" })),
    );
    const installed = answers.filter((a) => typeof a.result === "string");
    expect(installed).toHaveLength(256);
    expect(answers[256]!.error).toMatchObject({
      code: -32005,
      message: "too many filters for this caller",
      data: { limit: "filtersPerCaller", max: 256 },
    });
    await batch(
      node.url,
      installed.map((a) => ({ method: "eth_uninstallFilter", params: [a.result] })),
    );
    expect((await batch(node.url, [{ method: "eth_newBlockFilter" }]))[0]!.result).toMatch(/^0x/);
  });
});
