import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PRICE_ORACLE_ADDRESS, PriceOracle } from "@strata/contracts";
import { bytesToHex, createPublicClient, http } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";
import { main } from "../main.js";
import { runReporter } from "./reporter.js";

const dir = mkdtempSync(join(tmpdir(), "strata-reporter-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
/** The dev network's allow-listed oracle reporter (dev mnemonic index 110). */
const reporterKey = bytesToHex(
  mnemonicToAccount("test test test test test test test test test test test junk", {
    addressIndex: 110,
  }).getHdKey().privateKey!,
);
const days = Array.from({ length: 40 }, (_, i) =>
  new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10),
);
const csv = file("btc.csv", `date,close\n${days.map((d, i) => `${d},${100 + i}`).join("\n")}\n`);
const feed = file(
  "feed.json",
  JSON.stringify({
    assets: [
      { symbol: "BTC", csv },
      { symbol: "DOGE", csv },
    ],
  }),
);
const keyFile = file("key", `${reporterKey}\n`);

let t: TestNode;
beforeAll(async () => {
  t = await startTestNode();
});
afterAll(() => t.stop());

describe("strata reporter", () => {
  it("seeds the feed's history and then reports the current price", async () => {
    const client = createPublicClient({ transport: http(t.url) });
    const latest = () =>
      client.readContract({
        address: PRICE_ORACLE_ADDRESS,
        abi: PriceOracle.abi,
        functionName: "latestRoundData",
        args: ["BTC"],
      });
    const startedAt = Math.floor(Date.now() / 1000);
    const lines: string[] = [];
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const run = runReporter(
      ["--rpc", t.url, "--key", keyFile, "--feed", feed, "--max-interval", "1", "--log-level", "silent"],
      (l) => lines.push(l),
      () => stopped,
    );
    try {
      await expect
        .poll(async () => (await latest().catch(() => [0n, 0n, 0n, 0n]))[3], {
          timeout: 40_000,
          interval: 250,
        })
        .toBeGreaterThanOrEqual(BigInt(startedAt));
      const [roundId] = await latest();
      expect(roundId).toBeGreaterThanOrEqual(41n); // 40 seeded closes, then live rounds
      const [, firstAnswer] = await client.readContract({
        address: PRICE_ORACLE_ADDRESS,
        abi: PriceOracle.abi,
        functionName: "getRoundData",
        args: ["BTC", 1n],
      });
      expect(firstAnswer).toBe(100n * 10n ** 8n);
    } finally {
      stop();
    }
    expect(await run).toBe(0);
    expect(lines[0]).toMatch(
      /^reporting BTC to http:\/\/127\.0\.0\.1:\d+ as 0x51953940F874eFa94F92EB2d6Aed023617A07222$/,
    );
  });

  it("exits 2 with a one-line reason on bad flags", async () => {
    const cases = [
      ["--key", keyFile, "--feed", feed],
      ["--rpc", "localhost:8545", "--key", keyFile, "--feed", feed],
      ["--rpc", t.url, "--key", feed, "--feed", feed],
      ["--rpc", t.url, "--key", join(dir, "absent"), "--feed", feed],
      ["--rpc", t.url, "--key", keyFile, "--feed", csv],
      ["--rpc", t.url, "--key", keyFile, "--feed", feed, "--every-blocks", "0"],
    ];
    for (const args of cases) expect(await main(["reporter", ...args], () => {}), args.join(" ")).toBe(2);
    const unreachable = ["--rpc", "http://127.0.0.1:1", "--key", keyFile, "--feed", feed];
    expect(await main(["reporter", ...unreachable], () => {})).toBe(1);
  });
});
