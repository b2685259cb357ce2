import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createPublicClient, createWalletClient, defineChain, http, parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../../../explorer/src/e2e/browser.js";

/** The repository root, where the README's quick start runs. */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const PORTS = { node: 18651, api: 18652, explorer: 18653 };
const account = mnemonicToAccount("test test test test test test test test test test test junk", {
  addressIndex: 3,
});

/** The README's quick-start command (`npm start`) in its own process group, as a terminal runs it. */
interface QuickStart {
  readonly child: ChildProcess;
  readonly ready: string[];
  readonly output: string[];
  /** Exit code, or the signal npm re-raises after its script stopped (as after Ctrl-C in a terminal). */
  readonly exit: Promise<number | NodeJS.Signals | null>;
}

function startQuickStart(datadir: string): QuickStart {
  const child = spawn("npm", ["start"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      STRATA_PORT: String(PORTS.node),
      STRATA_API_PORT: String(PORTS.api),
      STRATA_EXPLORER_PORT: String(PORTS.explorer),
      STRATA_DATADIR: datadir,
      STRATA_LOG_LEVEL: "warn",
    },
  });
  const ready: string[] = [];
  const output: string[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    output.push(line);
    const match = /^ready (\S+)$/.exec(line);
    if (match) ready.push(match[1]!);
  });
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const exit = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal)),
  );
  return { child, ready, output, exit };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 120_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Ctrl-C: SIGINT to the whole process group; resolves with the exit code and the seconds it took. */
async function interrupt(
  run: QuickStart,
): Promise<{ code: number | NodeJS.Signals | null; seconds: number }> {
  const started = Date.now();
  process.kill(-run.child.pid!, "SIGINT");
  const code = await run.exit;
  return { code, seconds: (Date.now() - started) / 1000 };
}

const chain = defineChain({
  id: 1337,
  name: "Strata dev",
  nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
  rpcUrls: { default: { http: [`http://127.0.0.1:${PORTS.api}/rpc`] } },
});

describe("the README quick start (npm start)", () => {
  const datadir = mkdtempSync(join(tmpdir(), "strata-quick-start-"));
  let run: QuickStart | undefined;
  afterAll(() => {
    if (run && run.child.exitCode === null && run.child.signalCode === null)
      process.kill(-run.child.pid!, "SIGKILL");
    rmSync(datadir, { recursive: true, force: true });
  });

  it("serves node, API and explorer; a transaction shows in REST and the page; Ctrl-C stops it; a restart keeps the chain", async () => {
    run = startQuickStart(datadir);
    await until("five ready lines", () => (run!.ready.length >= 5 ? true : undefined), 240_000).catch(
      (error) => {
        throw new Error(`${(error as Error).message}\n${run!.output.join("\n")}`);
      },
    );
    expect(run.ready).toEqual([
      `http://127.0.0.1:${PORTS.node}`,
      `ws://127.0.0.1:${PORTS.node}`,
      `http://127.0.0.1:${PORTS.api}`,
      `ws://127.0.0.1:${PORTS.api}/ws`,
      `http://127.0.0.1:${PORTS.explorer}`,
    ]);
    expect(run.output.join("\n")).toMatch(/Strata dev stack · chain id 1337/);

    // A transaction through the gateway, as a wallet pointed at the API would send it.
    const transport = http(`http://127.0.0.1:${PORTS.api}/rpc`, { retryCount: 5 });
    const wallet = createWalletClient({ account, chain, transport });
    const client = createPublicClient({ chain, transport });
    const to = "0x000000000000000000000000000000000000beef";
    const hash = await wallet.sendTransaction({ to, value: parseEther("1.5") });
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 60_000 });
    expect(receipt.status).toBe("success");

    // The indexer picks it up; REST serves it.
    const indexed = await until("the transaction in REST", async () => {
      const res = await fetch(`http://127.0.0.1:${PORTS.api}/v1/transactions/${hash}`);
      return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
    });
    expect(indexed).toMatchObject({
      hash,
      from: account.address.toLowerCase(),
      to,
      value: parseEther("1.5").toString(),
      status: "success",
      blockNumber: Number(receipt.blockNumber),
    });

    // One scrape shows the gateway's and the indexer's metrics.
    const metrics = await (await fetch(`http://127.0.0.1:${PORTS.api}/metrics`)).text();
    expect(metrics).toMatch(/^strata_gateway_requests_total\{/m);
    expect(metrics).toMatch(/^strata_indexer_lag_blocks \d+$/m);

    // The dev chain's DePIN demo registers its simulated devices: REST serves them.
    const devices = await until("the demo's devices in REST", async () => {
      const res = await fetch(`http://127.0.0.1:${PORTS.api}/v1/depin/nodes`);
      const body = res.status === 200 ? ((await res.json()) as { items: { endpoint: string }[] }) : undefined;
      return body && body.items.length >= 6 ? body.items : undefined;
    });
    expect(devices.every((device) => device.endpoint.startsWith("simulated://strata-demo/"))).toBe(true);

    // The explorer pages show the transaction and the devices.
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${PORTS.explorer}/tx/${hash}`);
      await expect.poll(() => page.getByTestId("tx-hash").textContent(), { timeout: 30_000 }).toBe(hash);
      expect(await page.getByTestId("tx-status").textContent()).toMatch(/success/i);
      await page.goto(`http://127.0.0.1:${PORTS.explorer}/depin`);
      const rows = page.getByTestId("depin-table").locator("tbody tr");
      await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(devices.length);
      await rows.first().getByText("simulated").waitFor();
    } finally {
      await browser.close();
    }

    const head = await client.getBlockNumber();
    const first = await interrupt(run);
    expect([0, "SIGINT"]).toContain(first.code);
    expect(first.seconds).toBeLessThan(10);
    // strata's own last line: every service stopped before the process ended; nothing listens any more.
    expect(run.output.join("\n")).toMatch(/^stopped$/m);
    expect(run.output.join("\n")).not.toMatch(/node process exited/);
    for (const port of Object.values(PORTS)) {
      await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    }

    // Second start: same datadir, same chain.
    run = startQuickStart(datadir);
    await until("the second start", () => (run!.ready.length >= 5 ? true : undefined), 240_000);
    expect(await client.getBlockNumber()).toBeGreaterThanOrEqual(head);
    expect((await client.getTransactionReceipt({ hash })).blockHash).toBe(receipt.blockHash);
    expect(await client.getBalance({ address: to })).toBe(parseEther("1.5"));
    expect([0, "SIGINT"]).toContain((await interrupt(run)).code);
  }, 600_000);
});
