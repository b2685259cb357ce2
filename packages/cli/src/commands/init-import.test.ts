import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyChain } from "../../../node/src/conformance/harness/tiny-chain.js";
import { main } from "../main.js";
import { nodeConfigFromFlags } from "./node.js";

describe("strata init and strata import", () => {
  let root: string;
  let genesis: string;
  let chainFile: string;
  let head: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "strata-cli-import-"));
    const tiny = await buildTinyChain();
    head = `0x${Buffer.from(tiny.node.chain.head.hash()).toString("hex")}`;
    await tiny.stop();
    genesis = join(root, "genesis.json");
    chainFile = join(root, "chain.rlp");
    writeFileSync(genesis, JSON.stringify(tiny.genesis));
    writeFileSync(chainFile, tiny.chainFile);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("initialises a datadir, imports a chain file into it, and `strata node --datadir` then takes the network from it", async () => {
    const datadir = join(root, "data");
    const lines: string[] = [];
    const out = (line: string) => lines.push(line);
    expect(await main(["init", "--genesis", genesis, "--datadir", datadir], out)).toBe(0);
    expect(lines.pop()).toMatch(
      new RegExp(`^Initialised ${datadir} · chain id 4242 · genesis 0x[0-9a-f]{64}$`),
    );
    expect(await main(["import", "--datadir", datadir, chainFile], out)).toBe(0);
    expect(lines.pop()).toBe(`Imported 3 blocks (0 already known) · head 3 ${head}`);
    expect(await main(["import", chainFile, "--datadir", datadir], out)).toBe(0);
    expect(lines.pop()).toBe(`Imported 0 blocks (3 already known) · head 3 ${head}`);
    const config = nodeConfigFromFlags({ datadir });
    expect(config.network.chainId).toBe(4242);
    expect(config.mining.mode).toBe("manual");
  });

  it("refuses bad invocations with a one-line reason", async () => {
    const datadir = join(root, "empty");
    const out = () => {};
    await expect(main(["init", "--datadir", datadir], out)).resolves.toBe(2);
    await expect(main(["import", "--datadir", datadir], out)).resolves.toBe(2);
    await expect(main(["import", "--datadir", datadir, chainFile], out)).resolves.toBe(2);
    // A file that is not a chain: exit 1, and the datadir keeps its genesis head.
    await main(["init", "--genesis", genesis, "--datadir", datadir], out);
    const junk = join(root, "junk.rlp");
    writeFileSync(junk, "not rlp at all");
    await expect(main(["import", "--datadir", datadir, junk], out)).resolves.toBe(1);
  });
});
