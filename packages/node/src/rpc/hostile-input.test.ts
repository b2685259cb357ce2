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

type Call = { method: string; params?: unknown[] };

function post(url: string, calls: readonly Call[]): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(
      calls.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params ?? [] })),
    ),
  });
}

async function batch(url: string, calls: readonly Call[]): Promise<Answer[]> {
  return (await (await post(url, calls)).json()) as Answer[];
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

describe("node port: a batch's answer is bounded while it is built", () => {
  const MAX = 20_000;
  let node: TestNode;
  beforeAll(async () => {
    // No per-address filter cap, as behind a gateway (which caps per caller): see the last case.
    node = await startTestNode({ rpc: { maxResponseBytes: MAX, maxFiltersPerIp: 0 } });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it("answers the entries that fit and -32005 for the rest, staying under the response cap", async () => {
    const calls = Array.from({ length: 60 }, () => ({
      method: "eth_getBlockByNumber",
      params: ["0x0", true],
    }));
    const res = await post(node.url, calls);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX);
    const answers = JSON.parse(text) as Answer[];
    expect(answers).toHaveLength(60);
    expect(answers.map((a) => a.id)).toEqual(calls.map((_, i) => i));
    const served = answers.findIndex((a) => a.error !== undefined);
    expect(served).toBeGreaterThan(0);
    expect(answers.slice(0, served).every((a) => (a.result as { number: string }).number === "0x0")).toBe(
      true,
    );
    for (const refused of answers.slice(served)) {
      expect(refused.error).toEqual({
        code: -32005,
        message: `response exceeds ${MAX} bytes`,
        data: { limit: "responseBytes", max: MAX },
      });
    }
  });

  it("with the per-address filter cap off (--rpc.filters-per-ip 0), one address installs more than 256", async () => {
    // Batches whose answers stay well under this node's response cap.
    const installed: unknown[] = [];
    for (let round = 0; round < 6; round++) {
      const answers = await batch(
        node.url,
        Array.from({ length: 50 }, () => ({ method: "eth_newBlockFilter" })),
      );
      installed.push(...answers.filter((a) => typeof a.result === "string").map((a) => a.result));
    }
    expect(installed).toHaveLength(300);
    for (let i = 0; i < installed.length; i += 50) {
      await batch(
        node.url,
        installed.slice(i, i + 50).map((id) => ({ method: "eth_uninstallFilter", params: [id] })),
      );
    }
  });
});
