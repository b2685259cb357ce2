import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { brokenRules, findCycles, folderGraph, type LayerRule, readImportGraph } from "./import-graph.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Directions the layering forbids (ARCHITECTURE.md "Layers"). */
const RULES: readonly LayerRule[] = [
  {
    from: "packages/node/src/config/",
    to: "packages/node/src/",
    except: "packages/node/src/config/",
    reason: "config is pure data at the bottom: it imports no other part of the node",
  },
  {
    from: "packages/node/src/execution/",
    to: "packages/node/src/consensus/",
    reason: "consensus builds on execution; execution takes what it needs from consensus as parameters",
  },
  {
    from: "packages/node/src/execution/evm/",
    to: "packages/node/src/execution/",
    except: "packages/node/src/execution/evm/",
    reason: "evm/ (chain rules, interpreter hooks, run limits) is the bottom of execution",
  },
  ...["evm", "state", "block", "call", "simulate", "tracing"].map((folder) => ({
    from: `packages/node/src/execution/${folder}/`,
    to: "packages/node/src/execution/worker/",
    reason: "worker/ runs the rest of execution on threads; only the composition roots use it",
  })),
  {
    from: "packages/gateway/src/rpc/",
    to: "packages/gateway/src/server/",
    reason: "the transports in server/ call rpc/, never the other way",
  },
  {
    from: "packages/gateway/src/upstream/",
    to: "packages/gateway/src/rpc/",
    reason: "upstream/ talks to nodes for rpc/ and server/",
  },
  {
    from: "packages/gateway/src/upstream/",
    to: "packages/gateway/src/server/",
    reason: "upstream/ talks to nodes for rpc/ and server/",
  },
];

describe("import rules", () => {
  const graph = readImportGraph(ROOT);

  it("reads the sources of every package", () => {
    expect(graph.get("packages/node/src/node.ts")).toContain("packages/node/src/chain/open-chain.ts");
    expect(graph.get("packages/cli/src/flags.ts")).toContain("packages/cli/src/config-file.ts");
  });

  it("has no import loop, type-only imports included", () => {
    expect(findCycles(graph).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("has no import loop between the sub-folders of execution/", () => {
    const folders = folderGraph(graph, "packages/node/src/execution/");
    expect(folders.get("packages/node/src/execution/worker/")).toContain(
      "packages/node/src/execution/block/",
    );
    expect(findCycles(folders).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("has no import against the layering", () => {
    expect(brokenRules(graph, RULES)).toEqual([]);
  });

  it("finds a loop and a forbidden direction when there is one", () => {
    const bad = new Map([
      ["packages/node/src/config/a.ts", ["packages/node/src/consensus/b.ts"]],
      ["packages/node/src/consensus/b.ts", ["packages/node/src/config/a.ts"]],
      ["packages/node/src/execution/c.ts", ["packages/node/src/consensus/b.ts"]],
    ]);
    expect(findCycles(bad)).toEqual([
      ["packages/node/src/config/a.ts", "packages/node/src/consensus/b.ts", "packages/node/src/config/a.ts"],
    ]);
    expect(brokenRules(bad, RULES)).toEqual([
      `packages/node/src/config/a.ts -> packages/node/src/consensus/b.ts (${RULES[0]!.reason})`,
      `packages/node/src/execution/c.ts -> packages/node/src/consensus/b.ts (${RULES[1]!.reason})`,
    ]);
  });

  it("finds a loop between sub-folders and an import out of the bottom or into the top of execution/", () => {
    const dir = "packages/node/src/execution/";
    const bad = new Map([
      [`${dir}state/a.ts`, [`${dir}state/b.ts`, `${dir}block/c.ts`]],
      [`${dir}state/b.ts`, []],
      [`${dir}block/c.ts`, [`${dir}state/b.ts`]],
      [`${dir}evm/d.ts`, [`${dir}evm/e.ts`, `${dir}state/b.ts`]],
      [`${dir}call/f.ts`, [`${dir}worker/g.ts`]],
    ]);
    expect(findCycles(folderGraph(bad, dir))).toEqual([[`${dir}block/`, `${dir}state/`, `${dir}block/`]]);
    expect(brokenRules(bad, RULES)).toEqual([
      `${dir}evm/d.ts -> ${dir}state/b.ts (${RULES[2]!.reason})`,
      `${dir}call/f.ts -> ${dir}worker/g.ts (${RULES[6]!.reason})`,
    ]);
  });
});
