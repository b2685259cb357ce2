import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The code of an `eval` worker that runs the TypeScript module `program` through tsx's loader, which
 * workers do not inherit: how a module running from its source (tests) starts its worker program.
 */
export function sourceWorkerBootstrap(program: URL): string {
  return `import(${JSON.stringify(tsxLoaderApi())}).then((api) => { api.register(); return import(${JSON.stringify(program.href)}); });`;
}

/** The URL of tsx's ES-module loader API (`tsx/esm/api`, its `import` entry), found through tsx's exports. */
function tsxLoaderApi(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("tsx/package.json");
  const manifest = require(manifestPath) as { exports: Record<string, { import: { default: string } }> };
  const entry = manifest.exports["./esm/api"]?.import.default;
  if (!entry) throw new Error("tsx has no ES-module loader API");
  return pathToFileURL(join(dirname(manifestPath), entry)).href;
}
