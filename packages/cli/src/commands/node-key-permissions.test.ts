import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { keyFileWarning } from "./node.js";

const BIN = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "strata-cli-key-mode-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(mode: number): string {
  const file = join(dir, `validator-${mode.toString(8)}.key`);
  writeFileSync(file, `0x${"11".repeat(32)}\n`);
  chmodSync(file, mode);
  return file;
}

describe("strata node --validator-key file permissions", () => {
  it("warns, as ssh does, when group or others may read or write the key", () => {
    for (const mode of [0o644, 0o640, 0o604, 0o620, 0o666]) {
      const file = keyFile(mode);
      expect(keyFileWarning(file)).toBe(
        `validator key file "${file}" is accessible by other users (permissions 0${mode.toString(8)}): anyone who reads it can sign as this validator; run chmod 600 "${file}"`,
      );
    }
  });

  it("stays quiet when only the owner may", () => {
    for (const mode of [0o600, 0o400]) expect(keyFileWarning(keyFile(mode))).toBeUndefined();
  });

  it("is logged when strata node starts with such a key", async () => {
    const file = keyFile(0o644);
    const child = spawn(
      process.execPath,
      [BIN, "node", "--datadir", join(dir, "data"), "--rpc.port", "0", "--mining", "manual"].concat([
        "--log-level",
        "warn",
        "--validator-key",
        file,
      ]),
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let stdout = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          if (/ready http/.test(stdout)) resolve();
        });
        child.once("exit", (code) => reject(new Error(`node exited with ${code}: ${stdout}${stderr}`)));
      });
      expect(stderr).toContain(`is accessible by other users (permissions 0644)`);
    } finally {
      if (child.exitCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        await exited;
      }
    }
  }, 60_000);
});
