import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keyFileWarning } from "./node.js";

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
});
