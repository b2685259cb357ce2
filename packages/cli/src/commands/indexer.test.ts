import { describe, expect, it } from "vitest";
import { main } from "../main.js";

describe("strata indexer", () => {
  it("prints its flags with --help", async () => {
    const lines: string[] = [];
    expect(await main(["indexer", "--help"], (l) => lines.push(l))).toBe(0);
    const help = lines.join("\n");
    for (const flag of ["--rpc", "--ws", "--database-url", "--data-dir", "--batch-size"])
      expect(help).toContain(flag);
  });

  it("exits 2 with a one-line reason on bad flags or an unreachable node", async () => {
    expect(await main(["indexer"], () => {})).toBe(2);
    expect(await main(["indexer", "--rpc", "not-a-url"], () => {})).toBe(2);
    expect(await main(["indexer", "--rpc", "http://127.0.0.1:19299", "--batch-size", "0"], () => {})).toBe(2);
    expect(await main(["indexer", "--rpc", "http://127.0.0.1:19299"], () => {})).toBe(2);
    expect(await main(["indexer", "--rpc", "http://127.0.0.1:19299", "--bogus"], () => {})).toBe(2);
  });
});
