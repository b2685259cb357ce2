import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRpc, rpc } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";

let t: TestNode;
const ADDRESS = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

beforeAll(async () => {
  t = await startTestNode({ rpc: { maxBodyBytes: 64 * 1024, maxBatch: 20, maxLogRange: 100 } });
});
afterAll(() => t.stop());

function call(method: string, params: unknown[], id: unknown = 1) {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

describe("HTTP transport", () => {
  it("answers invalid JSON with 200 and -32700", async () => {
    const response = await rawRpc(t.url, "{oops");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    });
  });

  it("answers a bad envelope with -32600 and an unknown method with -32601", async () => {
    const bad = await rawRpc(t.url, '{"jsonrpc":"1.0","id":3,"method":"eth_chainId"}');
    expect(bad.body).toMatchObject({ id: 3, error: { code: -32600 } });
    const unknown = await rawRpc(t.url, call("eth_nope", []));
    expect(unknown.body).toMatchObject({
      error: { code: -32601, message: "the method eth_nope does not exist/is not available" },
    });
  });

  it("refuses bodies over the limit with 413", async () => {
    const response = await rawRpc(t.url, call("web3_sha3", [`0x${"00".repeat(40 * 1024)}`]));
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ error: { code: -32600 } });
  });

  it("refuses other content types with 415, other verbs with 405, other paths with 404", async () => {
    expect((await rawRpc(t.url, call("eth_chainId", []), { "content-type": "text/plain" })).status).toBe(415);
    expect((await rawRpc(t.url, "", {}, "GET")).status).toBe(405);
    expect((await rawRpc(`${t.url}/nope`, call("eth_chainId", []))).status).toBe(404);
    const charset = await rawRpc(t.url, call("eth_chainId", []), {
      "content-type": "application/json; charset=utf-8",
    });
    expect(charset.body).toMatchObject({ result: "0x539" });
  });

  it("answers CORS preflights", async () => {
    const response = await fetch(t.url, { method: "OPTIONS" });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("sends the CORS origin with every kind of answer", async () => {
    const post = (url: string, body: string, type = "application/json") =>
      fetch(url, { method: "POST", headers: { "content-type": type }, body });
    const answers = [
      await post(t.url, call("eth_chainId", [])),
      await post(t.url, '{"jsonrpc":"2.0","method":"eth_chainId"}'),
      await post(t.url, "{"),
      await post(t.url, call("eth_chainId", []), "text/plain"),
      await post(`${t.url}/nope`, call("eth_chainId", [])),
      await fetch(t.url),
      await fetch(`${t.url}/metrics`),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 204, 200, 415, 404, 405, 200]);
    for (const answer of answers) expect(answer.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers batches in order, skipping notifications", async () => {
    const body = `[${call("eth_chainId", [], 1)},{"jsonrpc":"2.0","method":"eth_chainId"},${call("net_version", [], "b")},${call("eth_nope", [], 3)}]`;
    const response = await rawRpc(t.url, body);
    expect(response.body).toEqual([
      { jsonrpc: "2.0", id: 1, result: "0x539" },
      { jsonrpc: "2.0", id: "b", result: "1337" },
      {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32601, message: "the method eth_nope does not exist/is not available" },
      },
    ]);
  });

  it("answers a batch of only notifications with 204, an empty or oversize batch with -32600", async () => {
    const notes = await rawRpc(t.url, '[{"jsonrpc":"2.0","method":"eth_chainId"}]');
    expect(notes.status).toBe(204);
    expect((await rawRpc(t.url, "[]")).body).toMatchObject({
      error: { code: -32600, message: "empty batch" },
    });
    const big = `[${Array.from({ length: 21 }, (_, i) => call("eth_chainId", [], i)).join(",")}]`;
    expect((await rawRpc(t.url, big)).body).toMatchObject({
      error: { code: -32600, message: "batch too large" },
    });
  });

  it("echoes huge numeric ids exactly", async () => {
    const response = await rawRpc(
      t.url,
      '{"jsonrpc":"2.0","id":184467440737095516150,"method":"eth_chainId"}',
    );
    expect(response.text).toBe('{"jsonrpc":"2.0","id":184467440737095516150,"result":"0x539"}');
  });

  it.each([
    [["0x", "latest"], "invalid argument 0: hex string has length 0, want 40 for common.Address"],
    [["0x1234", "latest"], "invalid argument 0: hex string has length 4, want 40 for common.Address"],
    [[ADDRESS, "0x"], 'invalid argument 1: hex string "0x"'],
    [[ADDRESS, "0x01"], "invalid argument 1: hex number with leading zero digits"],
    [[ADDRESS, "1"], 'invalid argument 1: invalid block number or tag "1"'],
    [[ADDRESS, `0x${"f".repeat(100)}`], "invalid argument 1: hex number > 64 bits"],
    [[ADDRESS, "newest"], 'invalid argument 1: invalid block number or tag "newest"'],
    [[], "missing value for required argument 0"],
    [[ADDRESS, "latest", 3], "too many arguments, want at most 2"],
  ])("answers eth_getBalance%j with -32602", async (params, message) => {
    const response = await rpc(t.url, "eth_getBalance", params);
    expect(response.error).toEqual({ code: -32602, message });
  });

  it("answers a state query at a future block with header not found", async () => {
    expect((await rpc(t.url, "eth_getBalance", [ADDRESS, "0x1000"])).error).toEqual({
      code: -32000,
      message: "header not found",
    });
  });

  it("returns null for absent blocks and transactions", async () => {
    expect((await rpc(t.url, "eth_getBlockByHash", [`0x${"12".repeat(32)}`, false])).result).toBeNull();
    expect((await rpc(t.url, "eth_getTransactionByHash", [`0x${"12".repeat(32)}`])).result).toBeNull();
    expect((await rpc(t.url, "eth_getTransactionReceipt", [`0x${"12".repeat(32)}`])).result).toBeNull();
  });

  it("refuses by-name params with -32602", async () => {
    const response = await rawRpc(
      t.url,
      '{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"address":"0x0"}}',
    );
    expect(response.body).toMatchObject({ error: { code: -32602 } });
  });

  it("rejects getLogs misuse with -32602 and over-range queries with -32005", async () => {
    const reversed = await rpc(t.url, "eth_getLogs", [{ fromBlock: "0x2", toBlock: "0x1" }]);
    expect(reversed.error?.code).toBe(-32602);
    const both = await rpc(t.url, "eth_getLogs", [{ fromBlock: "0x0", blockHash: `0x${"12".repeat(32)}` }]);
    expect(both.error?.code).toBe(-32602);
    await rpc(t.url, "anvil_mine", ["0x65"]);
    const tooWide = await rpc(t.url, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }]);
    expect(tooWide.error).toMatchObject({ code: -32005, data: { fromBlock: "0x0", toBlock: "0x63" } });
    const ok = await rpc(t.url, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "0x63" }]);
    expect(ok.result).toEqual([]);
  });

  it("answers the net_, web3_ and node status methods", async () => {
    expect((await rpc(t.url, "net_version")).result).toBe("1337");
    // p2p is off on a test node: it listens for no peers.
    expect((await rpc(t.url, "net_listening")).result).toBe(false);
    expect((await rpc(t.url, "net_peerCount")).result).toBe("0x0");
    expect((await rpc(t.url, "web3_clientVersion")).result).toMatch(/^strata\/v\d/);
    expect((await rpc(t.url, "web3_sha3", ["0x68656c6c6f20776f726c64"])).result).toBe(
      "0x47173285a8d7341e5e972fc677286384f802f8ef42a5ec5f03bbfa254cb01fad",
    );
    expect((await rpc(t.url, "eth_syncing")).result).toBe(false);
    expect((await rpc(t.url, "eth_coinbase")).result).toMatch(/^0x[0-9a-f]{40}$/);
  });
});
