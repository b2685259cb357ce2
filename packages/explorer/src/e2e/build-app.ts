import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));

/** Builds the browser app from the current sources into a fresh temporary directory and returns it. */
export async function buildAppForTest(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), "strata-explorer-web-"));
  // The test runner sets NODE_ENV=test, which would give a development bundle (JSX dev runtime,
  // React's dev build); the bundle under test must be the production one that ships.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      configFile: join(PACKAGE_DIR, "vite.config.ts"),
      root: join(PACKAGE_DIR, "web"),
      logLevel: "warn",
      mode: "production",
      build: { outDir, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  return outDir;
}
