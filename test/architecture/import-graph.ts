import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** Source file (relative to the repository root) -> the source files it imports, type-only imports included. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** A direction the layering forbids: files under `from` may not import files under `to` (unless under `except`). */
export interface LayerRule {
  readonly from: string;
  readonly to: string;
  readonly except?: string;
  /** Why, shown when the rule is broken. */
  readonly reason: string;
}

const SKIPPED_DIRS = new Set(["node_modules", "dist", "dist-web", "e2e"]);

/**
 * The relative imports between the library sources of `packages/<name>/src` (tests, e2e suites and
 * declaration files left out), read with TypeScript's own import scanner.
 */
export function readImportGraph(root: string): ImportGraph {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) walk(path);
      } else if (/\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name)) {
        files.push(path);
      }
    }
  };
  for (const pkg of readdirSync(join(root, "packages"))) {
    const src = join(root, "packages", pkg, "src");
    if (existsSync(src)) walk(src);
  }
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => relative(root, sourceOf(resolve(dirname(file), specifier))));
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** The TypeScript file an ESM specifier (`./x.js`, `./dir/index.js`, `./data.json`) stands for. */
function sourceOf(target: string): string {
  const candidates = [
    target.replace(/\.js$/, ".ts"),
    target.replace(/\.js$/, ".tsx"),
    join(target, "index.ts"),
  ];
  return candidates.find((candidate) => existsSync(candidate)) ?? target;
}

/** Every import loop of `graph`, each as the files around it with the first one repeated at the end. */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return cycles;
}

/**
 * The imports between the sub-folders of `parent` (a folder path ending in `/`): each file under it
 * stands for its first sub-folder, and imports within one sub-folder, or to and from files outside
 * the sub-folders, are left out. `findCycles` of it gives the loops between the sub-folders.
 */
export function folderGraph(graph: ImportGraph, parent: string): ImportGraph {
  const folderOf = (file: string): string | undefined => {
    if (!file.startsWith(parent)) return undefined;
    const rest = file.slice(parent.length);
    const slash = rest.indexOf("/");
    return slash < 0 ? undefined : `${parent}${rest.slice(0, slash)}/`;
  };
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const targets = folders.get(from) ?? new Set<string>();
    folders.set(from, targets);
    for (const target of imports) {
      const to = folderOf(target);
      if (to !== undefined && to !== from) targets.add(to);
    }
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets].sort()]));
}

/** Each import that breaks one of `rules`, as `file -> imported (reason)`. */
export function brokenRules(graph: ImportGraph, rules: readonly LayerRule[]): string[] {
  const broken: string[] = [];
  for (const [file, imports] of graph) {
    for (const rule of rules) {
      if (!file.startsWith(rule.from)) continue;
      for (const target of imports) {
        const excepted = rule.except !== undefined && target.startsWith(rule.except);
        if (target.startsWith(rule.to) && !excepted) broken.push(`${file} -> ${target} (${rule.reason})`);
      }
    }
  }
  return broken;
}
