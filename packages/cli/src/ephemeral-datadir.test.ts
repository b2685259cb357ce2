import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { NODE_FLAGS, nodeConfigFromFlags } from "./commands/node.js";
import { createEphemeralDatadir, EPHEMERAL_MIN_FREE_BYTES, ephemeralBase } from "./ephemeral-datadir.js";
import { parseFlags } from "./flags.js";

const BIN = fileURLToPath(new URL("../bin/strata.js", import.meta.url));

describe("ephemeral datadirs", () => {
  const base = mkdtempSync(join(tmpdir(), "strata-ephemeral-test-"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("makes a new directory named after this process and deletes it on remove()", () => {
    const first = createEphemeralDatadir(base);
    const second = createEphemeralDatadir(base);
    expect(first.path).not.toBe(second.path);
    expect(first.path.startsWith(join(base, `strata-ephemeral-${process.pid}-`))).toBe(true);
    expect(readdirSync(first.path)).toEqual([]);
    first.remove();
    expect(existsSync(first.path)).toBe(false);
    expect(existsSync(second.path)).toBe(true);
    second.remove();
  });

  it("go to /dev/shm only when it has room, else to the temp directory", () => {
    // This machine's /dev/shm has more than the minimum free; a container's small one would not.
    expect(ephemeralBase()).toBe("/dev/shm");
    expect(ephemeralBase("/dev/shm", 0)).toBe("/dev/shm");
    expect(ephemeralBase("/dev/shm", Number.MAX_SAFE_INTEGER)).toBe(tmpdir());
    expect(ephemeralBase(join(base, "no-such-dir"), 0)).toBe(tmpdir());
    expect(EPHEMERAL_MIN_FREE_BYTES).toBe(1024 ** 3);
  });

  it("deletes those a killed node left behind, and nothing else", async () => {
    // A process that has exited: its pid names an orphan.
    const gone = spawn(process.execPath, ["-e", ""]);
    await once(gone, "exit");
    const orphan = join(base, `strata-ephemeral-${gone.pid}-abc123`);
    const live = join(base, `strata-ephemeral-${process.pid}-def456`);
    const other = join(base, "not-ours");
    for (const dir of [orphan, live, other]) mkdirSync(join(dir, "chaindata"), { recursive: true });
    const made = createEphemeralDatadir(base);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
    made.remove();
  });
});

describe("strata node --ephemeral", () => {
  it("marks the node's store as lasting one run (never flushed, committed synchronously)", () => {
    const config = (argv: string[]) => nodeConfigFromFlags(parseFlags(argv, NODE_FLAGS, { env: {} }));
    expect(config(["--datadir", "/tmp/unused"]).ephemeral).toBe(false);
    expect(config(["--ephemeral", "--datadir", "/tmp/unused"]).ephemeral).toBe(true);
  });

  it("serves a chain from a datadir in memory and deletes it when stopped", async () => {
    const child = spawn(
      process.execPath,
      [BIN, "node", "--ephemeral", "--rpc.port", "0", "--no-reporter", "--no-demo", "--log-level", "warn"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const ready = /ready (http:\/\/\S+)/.exec(stdout);
          if (ready) resolve(ready[1]!);
        });
        child.once("exit", (code) => reject(new Error(`node exited with ${code}: ${stdout}${stderr}`)));
      });
      const datadir = /Datadir: (\S+)/.exec(stdout)![1]!;
      expect(dirname(datadir)).toBe(ephemeralBase());
      expect(existsSync(join(datadir, "chaindata"))).toBe(true);
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: ["0x2"] }),
      });
      expect(((await response.json()) as { result: unknown }).result).toBeNull();
      const exited = once(child, "exit");
      child.kill("SIGINT");
      const [code] = await exited;
      expect(code).toBe(0);
      expect(existsSync(datadir)).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, "exit");
        child.kill("SIGKILL");
        await exited;
      }
    }
  }, 60_000);

  it("refuses --datadir beside it", async () => {
    const child = spawn(
      process.execPath,
      [BIN, "node", "--ephemeral", "--datadir", join(tmpdir(), "unused")],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toContain("--ephemeral makes a datadir of its own: leave out --datadir");
  }, 30_000);
});
