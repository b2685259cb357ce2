import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { STAKING_STATS_JAILED_OFFSET, STAKING_STATS_SLOT } from "./constants.js";

const require = createRequire(import.meta.url);
const solc = require("solc") as { compile(input: string): string };
const SOLIDITY = fileURLToPath(new URL("../solidity/", import.meta.url));

interface Layout {
  storage: { label: string; slot: string; offset: number; type: string }[];
  types: Record<string, { members?: { label: string; slot: string; offset: number }[] }>;
}

describe("Staking storage layout", () => {
  it("keeps Stats.jailed where the node's active-set reader looks for it", () => {
    const sources = Object.fromEntries(
      readdirSync(SOLIDITY)
        .filter((f) => f.endsWith(".sol"))
        .map((f) => [f, { content: readFileSync(`${SOLIDITY}${f}`, "utf8") }]),
    );
    const output = JSON.parse(
      solc.compile(
        JSON.stringify({
          language: "Solidity",
          sources,
          settings: { outputSelection: { "Staking.sol": { Staking: ["storageLayout"] } } },
        }),
      ),
    ) as { contracts: Record<string, Record<string, { storageLayout: Layout }>> };
    const layout = output.contracts["Staking.sol"]!.Staking!.storageLayout;
    const stats = layout.storage.find((s) => s.label === "_stats")!;
    expect(BigInt(stats.slot)).toBe(STAKING_STATS_SLOT);
    const struct = layout.types[stats.type.replace(/^t_mapping\(t_address,(.*)\)$/, "$1")]!;
    // One slot per validator, `jailed` at the offset the reader compares.
    expect(new Set(struct.members!.map((m) => m.slot))).toEqual(new Set(["0"]));
    expect(struct.members!.find((m) => m.label === "jailed")!.offset).toBe(STAKING_STATS_JAILED_OFFSET);
  });
});
