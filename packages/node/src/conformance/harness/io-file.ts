import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";

/** One request of a test and the response it expects, both as sent/received text. */
export interface Exchange {
  readonly request: string;
  readonly expected: string;
}

/** A conformance test: one `.io` file of the execution-apis `tests` folder. */
export interface IoTest {
  /** `<method folder>/<file name without .io>`. */
  readonly name: string;
  /** The method under test (the folder name). */
  readonly method: string;
  readonly comment: string;
  /** `// speconly`: only the shape of the answer is checked, against the specification's schema. */
  readonly specOnly: boolean;
  readonly exchanges: readonly Exchange[];
}

/**
 * Parses a `.io` file as hive's rpc-compat simulator does: `//` lines are comments (a `speconly`
 * comment marks the test as schema-checked only), `>> ` lines are requests and `<< ` lines the
 * expected responses, paired in order. Throws if a request has no response.
 */
export function parseIoFile(text: string, name: string): IoTest {
  const comments: string[] = [];
  const exchanges: Exchange[] = [];
  let pending: string | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith("//")) comments.push(line.slice(2).trim());
    else if (line.startsWith(">>")) {
      if (pending !== undefined) throw new Error(`${name}: request without a response`);
      pending = line.slice(2).trim();
    } else if (line.startsWith("<<")) {
      if (pending === undefined) throw new Error(`${name}: response without a request`);
      exchanges.push({ request: pending, expected: line.slice(2).trim() });
      pending = undefined;
    } else throw new Error(`${name}: unexpected line ${JSON.stringify(line.slice(0, 40))}`);
  }
  if (pending !== undefined) throw new Error(`${name}: request without a response`);
  return {
    name,
    method: dirname(name),
    comment: comments.filter((c) => !c.startsWith("speconly")).join(" "),
    specOnly: comments.some((c) => c.startsWith("speconly")),
    exchanges,
  };
}

/** Every `.io` test under `dir` (one folder per method), sorted by name as hive runs them. */
export function loadIoTests(dir: string): IoTest[] {
  const tests: IoTest[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder).sort()) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith(".io")) {
        const name = join(relative(dir, folder), basename(entry, ".io"));
        tests.push(parseIoFile(readFileSync(path, "utf8"), name));
      }
    }
  };
  walk(dir);
  return tests.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
