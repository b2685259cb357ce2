import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatReport, type ReplayReport, replayFixtures } from "./replay.js";
import { buildTinyChain } from "./tiny-chain.js";

/**
 * A fixture folder in the execution-apis layout, made from a chain a real node builds: the expected
 * answers are that node's own, so the replay checks that init + import reproduce the chain exactly.
 */
describe("conformance replay", () => {
  let fixtures: string;
  let report: ReplayReport;
  const lines: string[] = [];

  beforeAll(async () => {
    fixtures = mkdtempSync(join(tmpdir(), "strata-fixtures-"));
    const tiny = await buildTinyChain();
    const write = async (name: string, request: object, expected?: string, comment = "") => {
      const text = JSON.stringify({ jsonrpc: "2.0", id: 1, ...request });
      const answer = expected ?? (await tiny.ask(text));
      mkdirSync(join(fixtures, name.split("/")[0]!), { recursive: true });
      writeFileSync(join(fixtures, `${name}.io`), `// ${name}\n${comment}>> ${text}\n<< ${answer}\n`);
    };
    try {
      writeFileSync(join(fixtures, "genesis.json"), JSON.stringify(tiny.genesis));
      writeFileSync(join(fixtures, "chain.rlp"), tiny.chainFile);
      await write("eth_blockNumber/simple", { method: "eth_blockNumber" });
      await write("eth_getBlockByNumber/get-prague-block", {
        method: "eth_getBlockByNumber",
        params: ["0x2", true],
      });
      await write("eth_getBlockByNumber/get-cancun-block", {
        method: "eth_getBlockByNumber",
        params: ["0x1", true],
      });
      await write("eth_getBlockReceipts/get-creation", { method: "eth_getBlockReceipts", params: ["0x3"] });
      // Error messages are not compared, codes are.
      await write(
        "eth_getBlockByNumber/bad-number",
        { method: "eth_getBlockByNumber", params: ["0x01", false] },
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"some other wording"}}',
      );
      // Only the shape counts for a speconly test.
      await write(
        "eth_getBlockByHash/speconly-shape",
        { method: "eth_getBlockByNumber", params: ["latest", false] },
        '{"jsonrpc":"2.0","id":1,"result":"anything"}',
        "// speconly: client response is only checked for schema validity.\n",
      );
      // A wrong expectation must be reported as a failure.
      await write(
        "eth_chainId/wrong-expectation",
        { method: "eth_chainId" },
        '{"jsonrpc":"2.0","id":1,"result":"0x1"}',
      );
    } finally {
      await tiny.stop();
    }
    report = await replayFixtures({ fixtures, out: (line) => lines.push(line) });
  });
  afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

  it("replays every .io file against a node initialised from the fixture and tallies per method", () => {
    expect(lines[1]).toMatch(/^imported 3 blocks, head 3 0x[0-9a-f]{64}$/);
    expect(report.results.map((r) => [r.name, r.pass])).toEqual([
      ["eth_blockNumber/simple", true],
      ["eth_chainId/wrong-expectation", false],
      ["eth_getBlockByHash/speconly-shape", true],
      ["eth_getBlockByNumber/bad-number", true],
      ["eth_getBlockByNumber/get-cancun-block", true],
      ["eth_getBlockByNumber/get-prague-block", true],
      ["eth_getBlockReceipts/get-creation", true],
    ]);
    expect(report.results.find((r) => !r.pass)?.detail).toBe('.result: have "0x1092", want "0x1"');
    expect(report).toMatchObject({ passed: 6, failed: 1, exactFailed: 1 });
    expect(formatReport(report)).toContain("total: 6/7 passed, 1 failed (1 exact-match)");
    expect(formatReport(report)).toContain("eth_getBlockByNumber     3     0");
  });
});
