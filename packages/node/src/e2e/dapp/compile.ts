import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Abi, Hex } from "viem";
import { DAPP_SOURCES } from "./sources.js";

const require = createRequire(import.meta.url);

interface Solc {
  version(): string;
  compile(
    input: string,
    callbacks: { import(path: string): { contents: string } | { error: string } },
  ): string;
}

/** A compiled contract: its ABI and creation code. */
export interface Artifact {
  readonly abi: Abi;
  readonly bytecode: Hex;
}

/** The contracts the dApp tests and the workflow benchmark deploy. */
export interface DappArtifacts {
  readonly PlainToken: Artifact;
  readonly VotesToken: Artifact;
  readonly TestGovernor: Artifact;
  readonly V2Driver: Artifact;
  readonly V3Driver: Artifact;
  /** Uniswap's published builds (`@uniswap/v2-core`, `@uniswap/v3-core`). */
  readonly UniswapV2Factory: Artifact;
  readonly UniswapV2Pair: Artifact;
  readonly UniswapV3Factory: Artifact;
  readonly UniswapV3Pool: Artifact;
}

const SETTINGS = {
  evmVersion: "cancun",
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
};

/** The installed package's folder (resolved through its package.json). */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

function readImport(path: string): { contents: string } | { error: string } {
  try {
    const [scope, name, ...rest] = path.split("/");
    return { contents: readFileSync(join(packageDir(`${scope}/${name}`), ...rest), "utf8") };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * Compiles {@link DAPP_SOURCES} with the project's solc-js (OpenZeppelin imported from its installed
 * package) and reads Uniswap's published artifacts. The compiler output is kept under
 * `node_modules/.cache` by source, compiler and OpenZeppelin version, so it is compiled once.
 */
export function dappArtifacts(): DappArtifacts {
  const solc = require("solc") as Solc;
  const ozVersion = (require("@openzeppelin/contracts/package.json") as { version: string }).version;
  const input = JSON.stringify({
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(DAPP_SOURCES).map(([name, content]) => [name, { content }])),
    settings: SETTINGS,
  });
  const key = createHash("sha256")
    .update(`${solc.version()}\n${ozVersion}\n${input}`)
    .digest("hex")
    .slice(0, 16);
  const cacheFile = join(packageDir("solc"), "..", ".cache", "strata-dapp", `${key}.json`);
  let compiled: Record<string, Artifact>;
  try {
    compiled = JSON.parse(readFileSync(cacheFile, "utf8")) as Record<string, Artifact>;
  } catch {
    const output = JSON.parse(solc.compile(input, { import: readImport })) as {
      errors?: { severity: string; formattedMessage: string }[];
      contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
    };
    const errors = (output.errors ?? []).filter((e) => e.severity === "error");
    if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
    compiled = {};
    for (const file of Object.keys(DAPP_SOURCES)) {
      for (const [name, contract] of Object.entries(output.contracts[file] ?? {})) {
        compiled[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
      }
    }
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(cacheFile, JSON.stringify(compiled));
  }
  const v2 = (name: string): Artifact => {
    const json = require(`@uniswap/v2-core/build/${name}.json`) as { abi: Abi; bytecode: string };
    return {
      abi: json.abi,
      bytecode: (json.bytecode.startsWith("0x") ? json.bytecode : `0x${json.bytecode}`) as Hex,
    };
  };
  const v3 = (name: string): Artifact => {
    const json = require(`@uniswap/v3-core/artifacts/contracts/${name}.sol/${name}.json`) as {
      abi: Abi;
      bytecode: Hex;
    };
    return { abi: json.abi, bytecode: json.bytecode };
  };
  return {
    PlainToken: compiled.PlainToken!,
    VotesToken: compiled.VotesToken!,
    TestGovernor: compiled.TestGovernor!,
    V2Driver: compiled.V2Driver!,
    V3Driver: compiled.V3Driver!,
    UniswapV2Factory: v2("UniswapV2Factory"),
    UniswapV2Pair: v2("UniswapV2Pair"),
    UniswapV3Factory: v3("UniswapV3Factory"),
    UniswapV3Pool: v3("UniswapV3Pool"),
  };
}
