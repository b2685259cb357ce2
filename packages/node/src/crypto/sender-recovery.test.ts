import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const MODULE = fileURLToPath(new URL("./sender-recovery.ts", import.meta.url));

/** Runs a short ES module in a fresh Node process (TypeScript through tsx) and returns its output. */
async function runScript(source: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], {
    timeout: 20_000,
  });
  return stdout.trim();
}

describe("SenderRecovery workers", () => {
  it("let the process end while idle, and keep it alive for an answer still owed", async () => {
    const idle = await runScript(
      `const { SenderRecovery } = await import(${JSON.stringify(MODULE)});
       SenderRecovery.start(2);
       console.log("started");`,
    );
    expect(idle).toBe("started");
    // A signature whose r is no curve point: the worker answers "no key" (undefined).
    const owed = await runScript(
      `const { SenderRecovery } = await import(${JSON.stringify(MODULE)});
       const recovery = SenderRecovery.start(1);
       const answer = await recovery.recover({ hash: new Uint8Array(32).fill(1), r: new Uint8Array(32).fill(0).map((_, i) => (i === 31 ? 5 : 0)), s: new Uint8Array(32).fill(3), recovery: 0 });
       console.log(answer === undefined ? "no key" : "key");`,
    );
    expect(owed).toBe("no key");
  });
});
