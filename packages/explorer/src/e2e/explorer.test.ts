import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  DEPIN_REGISTRY_ADDRESS,
  PRICE_ORACLE_ADDRESS,
  STAKING_ADDRESS,
  SYSTEM_ADDRESS,
} from "@strata/contracts";
import type { StrataNode } from "@strata/node";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { parseEther } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../../../test/support/test-stack.js";
import { type ExplorerServer, startExplorerServer } from "../static-server.js";
import { launchBrowser } from "./browser.js";
import { buildAppForTest } from "./build-app.js";
import { type Activity, devWallet, HOSTILE_NAME_SHOWN, makeActivity } from "./chain-activity.js";
import { modulesNodeSettings } from "./modules-node.js";

/** Screenshots land here (gitignored) for people to look at after a run. */
const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/explorer/", import.meta.url));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const UI_TIMEOUT = 20_000;
/** Pages the layout check has open at once. */
const PAGES_AT_ONCE = 4;

const short = (h: string) => `${h.slice(0, 8)}…${h.slice(-4)}`;

/** A fraction as the explorer shows it: 0.061 is "6.1 %". */
const percent = (fraction: string | number) =>
  `${(Number(fraction) * 100).toLocaleString("en-US", { maximumFractionDigits: 2 })} %`;

/** A number as the explorer shows it: 1234 (or "0x4d2") is "1,234", at most 2 decimals. */
const count = (n: number | string) => Number(n).toLocaleString("en-US", { maximumFractionDigits: 2 });

/** An integer amount with `decimals` as the explorer shows it: separators, `maxFraction` decimals at most. */
function units(value: string | bigint, decimals: number, maxFraction: number): string {
  const unit = 10n ** BigInt(decimals);
  const v = BigInt(value);
  let fraction = (v % unit).toString().padStart(decimals, "0").slice(0, maxFraction).replace(/0+$/, "");
  // Dust is shown as the smallest figure the format has, never as a bare 0.
  if (fraction === "" && v % unit !== 0n && v < unit) fraction = `${"0".repeat(maxFraction - 1)}1`;
  const whole = (v / unit).toLocaleString("en-US");
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Wei as the explorer shows STRA: thousands separators, at most 6 decimals, trailing zeros dropped. */
const stra = (wei: string | bigint) => `${units(wei, 18, 6)} STRA`;

/** Wei as the explorer shows gwei (gas prices): at most 4 decimals. */
const gwei = (wei: string | bigint) => `${units(wei, 9, 4)} gwei`;

/** A price as the explorer shows it: 2 decimals from 1,000 up, 4 from 1, 6 below. */
function price(value: string | number): string {
  const p = Number(value);
  const digits = p >= 1000 ? 2 : p >= 1 ? 4 : 6;
  return p.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 2 });
}

/** An address or id as list cells shorten it: `0x123456…abcd`. */
const shortAddress = (a: string) => `${a.slice(0, 8)}…${a.slice(-4)}`;

const SYSTEM_NAMES = new Map([
  [STAKING_ADDRESS.toLowerCase(), "Staking"],
  [DEPIN_REGISTRY_ADDRESS.toLowerCase(), "DePINRegistry"],
  [PRICE_ORACLE_ADDRESS.toLowerCase(), "PriceOracle"],
  [SYSTEM_ADDRESS.toLowerCase(), "System caller"],
]);

/** An address in a list cell: the protocol's name for it, or shortened. */
const addressCell = (a: string) => SYSTEM_NAMES.get(a.toLowerCase()) ?? shortAddress(a);

/** The prediction page's API answer, as far as these tests read it. */
interface PredictionAnswer {
  prediction: {
    confidence: string;
    currentPrice: string;
    lower: string;
    upper: string;
    predictedPrice: string;
    horizon: number;
    quantiles?: Record<string, string>;
  } | null;
  backtest: {
    mape: number;
    baselineMape: number;
    coverage80: number;
    calibrationError: number;
    horizon: number;
  } | null;
}

/** The staking page's API answer, as far as these tests read it. */
interface StakingAnswer {
  totalStaked: string;
  validatorCount: number;
  activeValidatorCount: number;
  minValidatorStake: string;
  epoch: number;
  epochLength: number;
  nextEpochBlock: string;
  unbondingPeriod: number;
  blockReward: string;
  apr: string;
  aprWindow: { fromBlock: string; toBlock: string; complete: boolean; epochs: number } | null;
}

/** Keeps the JSON of the latest answer to a request of `page` whose URL matches, as the page got it. */
function track<T>(page: Page, pattern: RegExp): { latest: () => T | undefined } {
  let latest: T | undefined;
  page.on("response", (response) => {
    if (!pattern.test(response.url()) || !response.ok()) return;
    response.json().then(
      (json) => {
        latest = json as T;
      },
      () => {},
    );
  });
  return { latest: () => latest };
}

/** Where a band of the prediction chart is drawn, in the chart's own coordinates. */
interface Box {
  top: number;
  height: number;
  right: number;
  svgWidth: number;
}

/** The bands of the prediction chart, in drawing order (widest first). */
function bandBoxes(page: Page): Promise<Box[]> {
  return page.evaluate<
    Box[]
  >(`[...document.querySelectorAll("svg[aria-label*='80 % interval'] path.band")].map((p) => {
    const b = p.getBBox();
    return { top: b.y, height: b.height, right: b.x + b.width, svgWidth: p.ownerSVGElement.viewBox.baseVal.width };
  })`);
}

/**
 * Browser-side check: every element with text of its own whose content is wider than its box
 * (scrollWidth > clientWidth), and every chart label that sticks out of its chart. Empty when all fit.
 */
const OVERFLOWING_TEXT = `(() => {
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el instanceof SVGElement) continue;
    const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
    if (ownText && el.scrollWidth > el.clientWidth)
      bad.push(el.tagName.toLowerCase() + "." + el.className + ": " + el.textContent.trim().slice(0, 40) + " (" + el.scrollWidth + " > " + el.clientWidth + ")");
  }
  for (const t of document.querySelectorAll("svg text")) {
    const width = t.ownerSVGElement.viewBox.baseVal.width;
    const b = t.getBBox();
    if (b.x < -0.5 || b.x + b.width > width + 0.5) bad.push("chart label " + t.textContent + " at " + Math.round(b.x) + ".." + Math.round(b.x + b.width) + " of " + width);
  }
  return bad;
})()`;

describe("block explorer in a browser", () => {
  let node: StrataNode;
  let stack: TestStack;
  let explorer: ExplorerServer;
  let browser: Browser;
  let activity: Activity;
  let webRoot: string;
  let desktop: BrowserContext;
  let phone: BrowserContext;
  const foreignRequests: string[] = [];
  /** Errors a page threw and did not catch (a render error would blank the app). */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    webRoot = await buildAppForTest();
    // The indexer follows the node from the start, as in `strata dev`; the activity arrives live.
    stack = await startTestStack({ node: modulesNodeSettings() });
    node = stack.node;
    activity = await makeActivity(node.rpcUrl, node.devAccounts);
    await stack.indexed(Number(node.chain.head.header.number));
    explorer = await startExplorerServer({ apiUrl: stack.url, port: 0, root: webRoot });
    browser = await launchBrowser();
    desktop = await newContext(DESKTOP);
    phone = await newContext(PHONE);
  }, 180_000);

  afterEach(async () => {
    for (const page of [...desktop.pages(), ...phone.pages()]) await page.close();
  });

  afterAll(async () => {
    await browser?.close();
    await explorer?.close();
    await stack?.stop();
    if (webRoot) rmSync(webRoot, { recursive: true, force: true });
  });

  /** A browser context of the given size that records any request leaving this machine. */
  async function newContext(viewport: typeof DESKTOP): Promise<BrowserContext> {
    const isPhone = viewport === PHONE;
    const context = await browser.newContext({ viewport, isMobile: isPhone, hasTouch: isPhone });
    context.setDefaultTimeout(UI_TIMEOUT);
    context.on("request", (req) => {
      const { hostname, protocol } = new URL(req.url());
      if (protocol !== "data:" && hostname !== "127.0.0.1") foreignRequests.push(req.url());
    });
    context.on("page", (page) => page.on("pageerror", (error) => pageErrors.push(`${page.url()}: ${error}`)));
    return context;
  }

  /** Opens `path` in a new tab of the desktop (or phone) context. */
  async function open(path: string, context: "desktop" | "phone" = "desktop"): Promise<Page> {
    const page = await (context === "phone" ? phone : desktop).newPage();
    await page.goto(explorer.url + path);
    return page;
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });

  async function search(page: Page, q: string) {
    await page.getByRole("searchbox").fill(q);
    await page.getByRole("searchbox").press("Enter");
  }

  it("shows chain stats and the latest blocks and transactions, then a new block without a reload", async () => {
    const page = await open("/");
    const head = () =>
      page
        .getByTestId("head")
        .textContent()
        .then((t) => Number(t?.replace(/,/g, "")));
    await expect
      .poll(head, { timeout: UI_TIMEOUT })
      .toBeGreaterThanOrEqual(Number(node.chain.head.header.number));
    await page.getByTestId("blocks-table").locator("tbody tr").first().waitFor();
    await page.getByTestId("tx-table").locator("tbody tr").first().waitFor();
    await expect
      .poll(() => page.getByTestId("live-mode").textContent(), { timeout: UI_TIMEOUT })
      .toMatch(/^\s*live$/);
    await page.locator(".chart svg").first().waitFor();
    await shot(page, "home-desktop");

    // Browser-side code as strings: this file is type-checked for Node, without DOM types.
    await page.evaluate("window.explorerTestMarker = 42");
    const wallet = devWallet(node.rpcUrl, node.devAccounts[2]!);
    const hash = await wallet.pay(activity.recipient, parseEther("0.25"));
    const { blockNumber } = await wallet.client.getTransactionReceipt({ hash });
    await page.locator(`[data-testid=blocks-table] tr[data-block="${blockNumber}"]`).waitFor();
    await page.getByTestId("tx-table").getByText(short(hash)).waitFor();
    // The head counter follows from its own update, which may land just after the block's row.
    await expect.poll(head, { timeout: UI_TIMEOUT }).toBeGreaterThanOrEqual(Number(blockNumber));
    // Still the same document: the block arrived live, not through a reload.
    expect(await page.evaluate("window.explorerTestMarker")).toBe(42);
  });

  it("searches a transaction hash, a block number and an address, and follows links between them", async () => {
    const page = await open("/");
    await search(page, activity.transferTx);
    await page.waitForURL(`**/tx/${activity.transferTx}`);
    await page.getByTestId("tx-status").getByText("success").waitFor();
    expect(await page.getByTestId("tx-hash").textContent()).toBe(activity.transferTx);
    await page.getByText("1.5 STRA").waitFor();
    await shot(page, "transaction-desktop");

    await page.locator(".field", { hasText: "Block" }).getByRole("link").click();
    await page.waitForURL(/\/block\/\d+$/);
    const blockNumber = Number(page.url().split("/").pop());
    expect(await page.getByTestId("block-number").textContent()).toBe(`#${blockNumber}`);
    await page.getByTestId("tx-table").getByText(short(activity.transferTx)).waitFor();
    await shot(page, "block-desktop");

    await search(page, String(blockNumber - 1));
    await page.waitForURL(`**/block/${blockNumber - 1}`);
    await page
      .getByTestId("block-number")
      .getByText(`#${blockNumber - 1}`)
      .waitFor();

    await search(page, activity.recipient);
    await page.waitForURL(`**/address/${activity.recipient}`);
    await page.getByTestId("address").getByText(activity.recipient).waitFor();
    await page.getByTestId("tx-table").getByText(short(activity.transferTx)).waitFor();
    await page.getByRole("tab", { name: "Token transfers" }).click();
    await page.getByTestId("transfers-table").getByText("25 XTT").waitFor();
    await shot(page, "address-desktop");

    await search(page, activity.token);
    await page.waitForURL(`**/token/${activity.token}`);
    await page.getByTestId("token-name").getByText("Explorer Test Token").waitFor();

    await search(page, "not-a-thing");
    await page.getByTestId("no-results").waitFor();
  });

  it("shows a token transfer's decoded logs and transfers, and the token page behind them", async () => {
    const page = await open(`/tx/${activity.tokenTransferTx}`);
    await page.getByTestId("log").getByText("Transfer").waitFor();
    const transfers = page.getByTestId("transfers-table");
    await transfers.getByText("25 XTT").waitFor();
    await transfers.getByRole("link", { name: "XTT" }).click();
    await page.waitForURL(`**/token/${activity.token}`);
    await page.getByTestId("token-name").getByText("Explorer Test Token").waitFor();
    await page.locator(".field", { hasText: "Total supply" }).getByText("1,000 XTT").waitFor();
    await page.getByTestId("transfers-table").getByText(short(activity.tokenTransferTx)).waitFor();
    await shot(page, "token-desktop");

    await page.goto(`${explorer.url}/address/${activity.token}`);
    await page.getByRole("tab", { name: "Code" }).click();
    expect(await page.getByTestId("code").textContent()).toMatch(/^0x[0-9a-f]{100,}/);
  });

  it("shows a token whose name() returns NUL and invalid UTF-8 (hostile input)", async () => {
    const page = await open(`/token/${activity.hostileToken}`);
    await page.getByTestId("token-name").getByText(HOSTILE_NAME_SHOWN).waitFor();
    const rest = await fetch(`${stack.url}/v1/tokens/${activity.hostileToken}`);
    expect(rest.status).toBe(200);
    expect(await rest.json()).toMatchObject({ name: HOSTILE_NAME_SHOWN, symbol: "HST" });
  });

  it("shows internal calls when the node traces, and none for a plain payment", async () => {
    const page = await open(`/tx/${activity.forwardedTx}`);
    const calls = page.getByTestId("internal-calls");
    await calls.getByText("CALL").waitFor();
    await calls.getByText("0.125 STRA").waitFor();
    await calls.getByRole("link", { name: new RegExp(short(activity.recipient), "i") }).waitFor();
    await shot(page, "transaction-internal-calls-desktop");
    await page.goto(`${explorer.url}/tx/${activity.transferTx}`);
    await page.getByTestId("tx-hash").waitFor();
    await page.getByRole("heading", { name: /Logs/ }).waitFor();
    expect(await page.getByTestId("internal-calls").count()).toBe(0);
  });

  it("shows a reverted transaction with its revert reason", async () => {
    const page = await open(`/tx/${activity.revertedTx}`);
    await page.getByTestId("tx-status").getByText("reverted").waitFor();
    await page.getByTestId("revert-reason").getByText("ERC20: transfer amount exceeds balance").waitFor();
    await shot(page, "transaction-reverted-desktop");
  });

  it("shows every figure of the home page, a block, a transaction, an address and a token as the API gives it", async () => {
    const field = (page: Page, label: string) =>
      page
        .locator(".field", { has: page.locator("dt", { hasText: new RegExp(`^${label}$`) }) })
        .locator("dd")
        .textContent();
    const page = await desktop.newPage();
    const txApi = track<{
      blockNumber: number;
      value: string;
      gas: string;
      gasUsed: string;
      effectiveGasPrice: string;
      type: number;
      nonce: number;
      index: number;
    }>(page, /\/v1\/transactions\/0x[0-9a-f]{64}$/);
    await page.goto(`${explorer.url}/tx/${activity.tokenTransferTx}`);
    await page.getByTestId("tx-hash").waitFor();
    await expect.poll(() => txApi.latest() !== undefined).toBe(true);
    const tx = txApi.latest()!;
    expect(await field(page, "Value")).toBe(stra(tx.value));
    expect(await field(page, "Fee")).toBe(stra(BigInt(tx.gasUsed) * BigInt(tx.effectiveGasPrice)));
    expect(await field(page, "Gas used / limit")).toBe(`${count(tx.gasUsed)} / ${count(tx.gas)}`);
    expect(await field(page, "Gas price")).toBe(gwei(tx.effectiveGasPrice));
    expect(await field(page, "Type / nonce / index")).toBe(`${tx.type} / ${tx.nonce} / ${tx.index}`);

    const blockApi = track<{
      number: number;
      gasUsed: string;
      gasLimit: string;
      baseFeePerGas: string;
      transactionCount: number;
      size: number;
    }>(page, /\/v1\/blocks\/\d+$/);
    await page.goto(`${explorer.url}/block/${tx.blockNumber}`);
    await page.getByTestId("block-number").waitFor();
    await expect.poll(() => blockApi.latest() !== undefined).toBe(true);
    const block = blockApi.latest()!;
    expect(await page.getByTestId("block-number").textContent()).toBe(`#${count(block.number)}`);
    expect(await field(page, "Transactions")).toBe(count(block.transactionCount));
    const used = Number(block.gasUsed) / Number(block.gasLimit);
    expect(await field(page, "Gas used")).toBe(`${count(block.gasUsed)} (${percent(used)})`);
    expect(await field(page, "Gas limit")).toBe(count(block.gasLimit));
    expect(await field(page, "Base fee")).toBe(gwei(block.baseFeePerGas));
    expect(await field(page, "Size")).toBe(`${count(block.size)} bytes`);

    const addressApi = track<{
      balance: string;
      nonce: number;
      transactionCount: number;
      transactionCountIsLowerBound: boolean;
    }>(page, /\/v1\/addresses\/0x[0-9a-f]{40}$/i);
    await page.goto(`${explorer.url}/address/${activity.sender}`);
    await page.getByTestId("balance").waitFor();
    await expect.poll(() => addressApi.latest() !== undefined).toBe(true);
    const address = addressApi.latest()!;
    expect(await page.getByTestId("balance").textContent()).toBe(stra(address.balance));
    expect(await field(page, "Nonce")).toBe(count(address.nonce));
    expect(await field(page, "Transactions")).toBe(
      `${count(address.transactionCount)}${address.transactionCountIsLowerBound ? "+" : ""}`,
    );

    const tokenApi = track<{
      totalSupply: string;
      decimals: number;
      symbol: string;
      holderCount: number;
      transferCount: number;
      transferCountIsLowerBound: boolean;
    }>(page, /\/v1\/tokens\/0x[0-9a-f]{40}$/i);
    await page.goto(`${explorer.url}/token/${activity.token}`);
    await page.getByTestId("token-name").waitFor();
    await expect.poll(() => tokenApi.latest() !== undefined).toBe(true);
    const token = tokenApi.latest()!;
    expect(await field(page, "Total supply")).toBe(
      `${units(token.totalSupply, token.decimals, 6)} ${token.symbol}`,
    );
    expect(await field(page, "Decimals")).toBe(String(token.decimals));
    expect(await field(page, "Holders")).toBe(count(token.holderCount));
    expect(await field(page, "Transfers")).toBe(
      `${count(token.transferCount)}${token.transferCountIsLowerBound ? "+" : ""}`,
    );

    // The block and transaction lists, row by row (the age column aside).
    const blocksApi = track<{
      items: { number: number; transactionCount: number; miner: string; gasUsed: string }[];
    }>(page, /\/v1\/blocks\?limit=\d+$/);
    await page.goto(`${explorer.url}/blocks`);
    const blockRows = async () => {
      const api = blocksApi.latest();
      if (!api) return ["no answer yet"];
      const wrong: string[] = [];
      for (const b of api.items) {
        const cells = await page
          .locator(`[data-testid=blocks-table] tr[data-block="${b.number}"] td`)
          .allTextContents();
        const expected = [
          count(b.number),
          cells[1] ?? "",
          String(b.transactionCount),
          addressCell(b.miner),
          count(b.gasUsed),
        ];
        if (JSON.stringify(cells) !== JSON.stringify(expected)) wrong.push(`${cells} != ${expected}`);
      }
      return wrong;
    };
    await page.getByTestId("blocks-table").locator("tbody tr").first().waitFor();
    await expect.poll(blockRows).toEqual([]);

    const txsApi = track<{
      items: {
        hash: string;
        blockNumber: number;
        from: string;
        to: string | null;
        contractAddress: string | null;
        value: string;
        status: string;
      }[];
    }>(page, /\/v1\/transactions\?limit=\d+$/);
    await page.goto(`${explorer.url}/txs`);
    const txRows = async () => {
      const api = txsApi.latest();
      if (!api) return ["no answer yet"];
      const rows = await page.getByTestId("tx-table").locator("tbody tr").all();
      if (rows.length !== api.items.length) return [`${rows.length} rows != ${api.items.length}`];
      const wrong: string[] = [];
      for (const [i, t] of api.items.entries()) {
        const cells = await rows[i]!.locator("td").allTextContents();
        const to = t.to
          ? addressCell(t.to)
          : `create${t.contractAddress ? ` ${addressCell(t.contractAddress)}` : ""}`;
        const expected = [
          shortAddress(t.hash),
          count(t.blockNumber),
          cells[2] ?? "",
          addressCell(t.from),
          to,
          stra(t.value),
          t.status,
        ];
        if (JSON.stringify(cells) !== JSON.stringify(expected)) wrong.push(`${cells} != ${expected}`);
      }
      return wrong;
    };
    await page.getByTestId("tx-table").locator("tbody tr").first().waitFor();
    await expect.poll(txRows).toEqual([]);

    // The home page's chain figures, which follow every new block: compared with the latest answer.
    const chainApi = track<{
      blockNumber: number;
      avgBlockTimeSeconds: number | null;
      tps: number;
      totalTransactions: number;
      totalAddresses: number;
      validatorCount: number;
      network: string;
      chainId: number;
      indexerLag: number | null;
    }>(page, /\/v1\/chain$/);
    await page.goto(explorer.url);
    const homeStat = (label: string) =>
      page
        .locator(".stat", { has: page.locator(".stat-label", { hasText: new RegExp(`^${label}$`) }) })
        .locator(".stat-value")
        .textContent();
    const homeDiffers = async () => {
      const api = chainApi.latest();
      if (!api) return ["no answer yet"];
      const shown: [string, string | null, string][] = [
        ["Latest block", await homeStat("Latest block"), count(api.blockNumber)],
        [
          "Avg block time",
          await homeStat("Avg block time"),
          `${api.avgBlockTimeSeconds === null ? "–" : count(api.avgBlockTimeSeconds)} s`,
        ],
        ["TPS", await homeStat("TPS"), count(api.tps)],
        ["Transactions", await homeStat("Transactions"), count(api.totalTransactions)],
        ["Addresses", await homeStat("Addresses"), count(api.totalAddresses)],
        ["Validators", await homeStat("Validators"), count(api.validatorCount)],
        ["Chain", await homeStat("Chain"), `${api.network} · ${api.chainId}`],
      ];
      return shown
        .filter(([, text, expected]) => text !== expected)
        .map(([what, text, e]) => `${what}: ${text} != ${e}`);
    };
    await page.getByTestId("chain-stats").waitFor();
    await expect.poll(homeDiffers).toEqual([]);
    await page.close();
  });

  it("shows validators, staking, DePIN nodes and predictions, every figure as the API gives it", async () => {
    const page = await desktop.newPage();
    const validatorsApi = track<{
      items: {
        address: string;
        status: string;
        jailed: boolean;
        stake: string;
        commission: string;
        uptime: string;
        blocksProposed: number;
        blocksMissed: number;
      }[];
    }>(page, /\/v1\/validators$/);
    await page.goto(`${explorer.url}/validators`);
    const validators = page.getByTestId("validators-table");
    await validators.locator("tbody tr").first().waitFor();
    await validators.getByText("5,000 STRA").first().waitFor();
    await expect.poll(() => validatorsApi.latest() !== undefined).toBe(true);
    const listed = validatorsApi.latest()!.items;
    expect(listed.length).toBeGreaterThan(0);
    for (const v of listed) {
      const row = validators.locator(`tr[data-address="${v.address}"]`);
      expect(await row.getByTestId("commission").textContent()).toBe(percent(v.commission));
      expect(await row.getByTestId("uptime").textContent()).toBe(percent(v.uptime));
      expect(await row.locator("td").allTextContents()).toEqual([
        shortAddress(v.address),
        v.jailed ? "jailed" : v.status,
        stra(v.stake),
        percent(v.commission),
        percent(v.uptime),
        count(v.blocksProposed),
        count(v.blocksMissed),
        "History",
      ]);
    }
    await page.getByRole("button", { name: "History" }).first().click();
    await page.locator("svg[aria-label^='Blocks proposed and missed per epoch']").waitFor();
    await shot(page, "validators-desktop");
    await page.close();

    // APR: the figure over a full window, "-" before one exists; the window is said either way.
    const staking = await desktop.newPage();
    const stakingApi = track<StakingAnswer>(staking, /\/v1\/staking$/);
    await staking.goto(`${explorer.url}/staking`);
    await staking.getByTestId("staking-stats").getByText("20,000 STRA").waitFor();
    const stakingStat = (label: string, part = ".stat-value") =>
      staking.locator(".stat", { has: staking.locator(".stat-label", { hasText: label }) }).locator(part);
    const stakingField = (label: string) =>
      staking.locator(".field", { has: staking.locator("dt", { hasText: label }) }).locator("dd");
    /** "-" or "full window" when every figure of the page is the latest answer's, else what differs. */
    const aprShown = async () => {
      const api = stakingApi.latest();
      if (!api) return "no answer yet";
      // Said at once when the figures are not on the page, with what the page shows instead.
      if ((await staking.getByTestId("apr").count()) === 0)
        return `no APR on the page: ${(await staking.locator("main").textContent())?.slice(0, 300)}`;
      const window = api.aprWindow;
      const shown: [string, string | null, string][] = [
        ["APR", await staking.getByTestId("apr").textContent(), window?.complete ? percent(api.apr) : "-"],
        ["Total staked", await stakingStat("Total staked").textContent(), stra(api.totalStaked)],
        [
          "Validators",
          await stakingStat("Validators").textContent(),
          `${api.activeValidatorCount} active / ${api.validatorCount}`,
        ],
        ["Epoch", await stakingStat("Epoch").textContent(), count(api.epoch)],
        [
          "Epoch hint",
          await stakingStat("Epoch", ".stat-hint").textContent(),
          `next at block ${count(api.nextEpochBlock)}`,
        ],
        [
          "Minimum stake",
          await stakingField("Minimum validator stake").textContent(),
          stra(api.minValidatorStake),
        ],
        [
          "Epoch length",
          await stakingField("Epoch length").textContent(),
          `${count(api.epochLength)} blocks`,
        ],
        ["Next epoch block", await stakingField("Next epoch block").textContent(), count(api.nextEpochBlock)],
        [
          "Unbonding",
          await stakingField("Unbonding period").textContent(),
          `${count(api.unbondingPeriod)} blocks`,
        ],
        ["Block reward", await stakingField("Block reward").textContent(), stra(api.blockReward)],
      ];
      const hint = await stakingStat("APR", ".stat-hint").textContent();
      if (window) {
        const blocks = `blocks ${count(window.fromBlock)}–${count(window.toBlock)}`;
        const epochs = `${window.epochs} ${window.complete ? "" : "of 10 "}epochs`;
        shown.push(["APR window", hint?.includes(blocks) && hint.includes(epochs) ? "said" : hint, "said"]);
      }
      const wrong = shown.filter(([, text, expected]) => text !== expected);
      if (wrong.length > 0)
        return wrong.map(([what, text, expected]) => `${what}: ${text} != ${expected}`).join("; ");
      return window?.complete ? "full window" : "-";
    };
    await expect.poll(aprShown).toBe("-");
    await shot(staking, "staking-desktop");
    // Ten epochs later the window is full and the measured figure replaces "-".
    await fetch(node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: ["0xc8"] }),
    });
    // The indexer takes in the 200 blocks before the page can show them: longer than a page update.
    await expect.poll(aprShown, { timeout: 3 * UI_TIMEOUT }).toBe("full window");
    await staking.close();

    // The DePIN demo's simulated devices, one of them silent: inactive, uptime below 100 %.
    const depin = await desktop.newPage();
    const depinApi = track<{
      items: {
        id: string;
        type: string;
        region: string;
        owner: string;
        stake: string;
        uptime: string;
        status: string;
        endpoint: string;
      }[];
    }>(depin, /\/v1\/depin\/nodes(\?|$)(?!.*limit=100)/);
    await depin.goto(`${explorer.url}/depin`);
    const table = depin.getByTestId("depin-table");
    await table.locator("tbody tr").first().waitFor();
    await expect.poll(() => depinApi.latest() !== undefined).toBe(true);
    const nodes = depinApi.latest()!.items;
    expect(nodes.length).toBe(6);
    expect(nodes.every((n) => n.endpoint.startsWith("simulated://"))).toBe(true);
    expect(nodes.filter((n) => n.status === "inactive").length).toBeGreaterThanOrEqual(1);
    expect(nodes.some((n) => Number(n.uptime) < 1)).toBe(true);
    for (const n of nodes) {
      const row = table.locator(`tr[data-id="${n.id}"]`);
      expect(await row.getByTestId("uptime").textContent()).toBe(percent(n.uptime));
      expect(await row.locator(".badge").textContent()).toBe(n.status);
      await row.getByText("simulated").waitFor();
      const cells = await row.locator("td").allTextContents();
      expect(cells[4]).toMatch(/ ago$|^never$/);
      expect([...cells.slice(0, 4), ...cells.slice(5)]).toEqual([
        `${n.id.slice(0, 10)}… simulated`,
        n.type,
        n.region,
        n.status,
        percent(n.uptime),
        stra(n.stake),
        shortAddress(n.owner),
      ]);
    }
    // One device of each type, in as many regions as devices.
    expect(new Set(nodes.map((n) => n.type)).size).toBe(5);
    expect(new Set(nodes.map((n) => n.region)).size).toBe(6);
    await depin.locator("svg[aria-label='DePIN nodes by region']").waitFor();
    await shot(depin, "depin-desktop");
    await depin.close();

    const predictions = await desktop.newPage();
    const predictionApi = track<PredictionAnswer>(predictions, /\/v1\/predictions\/BTC\?horizon=7$/);
    await predictions.goto(`${explorer.url}/predictions/BTC`);
    await predictions.getByTestId("prediction-stats").getByText("80 % interval").waitFor();
    await predictions.locator(".field", { hasText: "Mean absolute % error" }).waitFor();
    await expect.poll(() => predictionApi.latest() !== undefined).toBe(true);
    const answer = predictionApi.latest()!;
    const stat = (label: string) =>
      predictions.locator(".stat", { hasText: label }).locator(".stat-value").textContent();
    const field = (label: string) =>
      predictions.locator(".field", { hasText: label }).locator("dd").textContent();
    const prediction = answer.prediction!;
    expect(await stat("Confidence")).toBe(percent(prediction.confidence));
    expect(await stat("Current price")).toBe(price(prediction.currentPrice));
    expect(await stat(`In ${prediction.horizon} days`)).toBe(price(prediction.predictedPrice));
    expect(await stat("80 % interval")).toBe(`${price(prediction.lower)} – ${price(prediction.upper)}`);
    const backtest = answer.backtest!;
    expect(await field("Horizon")).toBe(`${backtest.horizon} d`);
    expect(await field("Mean absolute % error")).toBe(percent(backtest.mape));
    expect(await field("Naive baseline error")).toBe(percent(backtest.baselineMape));
    expect(await field("80 % interval coverage")).toBe(percent(backtest.coverage80));
    expect(await field("Calibration error")).toBe(percent(backtest.calibrationError));
    // A 6.1 % error is "6.1 %", never "0.06 %": backtest errors are fractions well under 1.
    expect(backtest.mape).toBeLessThan(1);
    await predictions.close();
  }, 150_000);

  it("zooms the prediction chart to its interval, and draws the quantile fan when the API gives one", async () => {
    // The same answer without quantiles (as an older node gives it): the 80 % band alone.
    const plainContext = await browser.newContext({ viewport: DESKTOP });
    await plainContext.route("**/v1/predictions/BTC?horizon=7", async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as PredictionAnswer;
      delete body.prediction!.quantiles;
      await route.fulfill({ response, json: body });
    });
    const page = await plainContext.newPage();
    await page.goto(`${explorer.url}/predictions/BTC`);
    const chart = page.locator("svg[aria-label*='80 % interval']");
    await chart.locator("path.band").first().waitFor();
    const plain = await bandBoxes(page);
    expect(plain).toHaveLength(1);
    // The interval's height at the horizon is a visible part of the plot, inside the chart.
    expect(plain[0]!.height).toBeGreaterThan(12);
    expect(plain[0]!.right).toBeLessThanOrEqual(plain[0]!.svgWidth + 0.5);
    // Prices near 100,000 label the y axis "100k", not "100,000.00".
    const yLabels = (await chart.locator("text.axis").allTextContents()).filter(
      (t) => !/^\d{4}-\d{2}-\d{2}$/.test(t),
    );
    expect(yLabels.length).toBeGreaterThan(1);
    for (const label of yLabels) expect(label).toMatch(/^(0|\d+(\.\d+)?k)$/);
    await shot(page, "predictions-desktop");

    await page.getByRole("combobox", { name: "History shown" }).selectOption("all");
    await expect.poll(async () => (await bandBoxes(page))[0]!.height).toBeLessThan(plain[0]!.height);
    await plainContext.close();

    // The node's own answer carries the model's quantiles: the 50/80/90 % fan.
    const answer = (await (
      await fetch(`${stack.url}/v1/predictions/BTC?horizon=7`)
    ).json()) as PredictionAnswer;
    expect(Object.keys(answer.prediction!.quantiles ?? {})).toEqual([
      "5",
      "10",
      "25",
      "50",
      "75",
      "90",
      "95",
    ]);
    const fanPage = await desktop.newPage();
    await fanPage.goto(`${explorer.url}/predictions/BTC`);
    await fanPage.locator("svg[aria-label*='80 % interval'] path.band-inner").waitFor();
    const fan = await bandBoxes(fanPage);
    expect(fan).toHaveLength(3);
    const [outer, eighty, inner] = fan as [Box, Box, Box];
    expect(outer.height).toBeGreaterThan(eighty.height);
    expect(eighty.height).toBeGreaterThan(inner.height);
    expect(inner.height).toBeGreaterThan(4);
    expect(outer.top).toBeGreaterThanOrEqual(0);
    await fanPage.locator(".legend").getByText("90 % interval").waitFor();
    await fanPage.locator(".legend").getByText("50 % interval").waitFor();
    await shot(fanPage, "predictions-quantile-fan-desktop");
    await fanPage.close();
  });

  /** The hash of the latest transaction to the DePIN registry (a demo heartbeat). */
  async function latestHeartbeat(): Promise<string> {
    const heartbeats = (await (
      await fetch(`${stack.url}/v1/addresses/${DEPIN_REGISTRY_ADDRESS}/transactions?limit=1`)
    ).json()) as { items: { hash: string }[] };
    return heartbeats.items[0]!.hash;
  }

  it("names the system contracts in lists, transactions and address pages, with the address on hover", async () => {
    const heartbeat = await latestHeartbeat();
    const page = await open(`/tx/${heartbeat}`);
    const to = page.locator(".field", { has: page.locator("dt", { hasText: /^To$/ }) }).getByRole("link");
    expect(await to.textContent()).toBe(`DePINRegistry ${DEPIN_REGISTRY_ADDRESS}`);
    expect(await to.getAttribute("title")).toBe(`DePINRegistry: ${DEPIN_REGISTRY_ADDRESS}`);
    await shot(page, "transaction-system-contract-desktop");

    await page.goto(`${explorer.url}/txs`);
    const names = page.getByTestId("tx-table").locator("a.address-name");
    await names.first().waitFor();
    const shown = new Set(await names.allTextContents());
    expect([...shown].every((n) => ["DePINRegistry", "PriceOracle", "Staking"].includes(n))).toBe(true);
    expect(shown.has("DePINRegistry") || shown.has("PriceOracle")).toBe(true);
    expect(await names.first().getAttribute("title")).toMatch(
      /^(DePINRegistry|PriceOracle|Staking): 0x0{36}[123]000$/,
    );

    for (const [address, name] of [
      [STAKING_ADDRESS, "Staking"],
      [PRICE_ORACLE_ADDRESS, "PriceOracle"],
      [SYSTEM_ADDRESS, "System caller"],
    ] as const) {
      await page.goto(`${explorer.url}/address/${address}`);
      await page.getByTestId("address-title").getByText(name, { exact: true }).waitFor();
      expect(await page.getByTestId("address").textContent()).toBe(address);
    }
  });

  it("says a section is not available on a network without it", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    // A network without a DePIN registry answers 404 for the whole section.
    await context.route("**/v1/depin/nodes*", (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/json",
        headers: { "access-control-allow-origin": "*" },
        body: JSON.stringify({ error: { code: "not_found", message: "no such resource /v1/depin/nodes" } }),
      }),
    );
    const page = await context.newPage();
    await page.goto(`${explorer.url}/depin`);
    await page.getByText("DePIN nodes is not available on this network.").waitFor();
    await shot(page, "depin-not-available-desktop");
    await context.close();
  });

  it("reports unknown pages and unknown transactions instead of failing", async () => {
    const page = await open("/no/such/page");
    await page.getByText("Page not found").waitFor();
    await page.goto(`${explorer.url}/tx/0x${"ab".repeat(32)}`);
    await page.getByText("Transaction not found.").waitFor();
  });

  it("fits desktop and phone: nothing wider than the screen, no text overflowing its box, no clipped chart label", async () => {
    const pages = [
      "/",
      "/blocks",
      "/txs",
      "/tokens",
      "/block/1",
      `/tx/${activity.tokenTransferTx}`,
      `/tx/${activity.forwardedTx}`,
      `/tx/${activity.revertedTx}`,
      `/tx/${await latestHeartbeat()}`,
      `/address/${activity.recipient}`,
      `/address/${STAKING_ADDRESS}`,
      `/address/${SYSTEM_ADDRESS}`,
      `/token/${activity.token}`,
      "/validators",
      "/staking",
      "/depin",
      "/predictions",
      "/predictions/BTC",
      "/predictions/ETH",
      "/predictions/STRA",
      "/search?q=not-a-thing",
    ];
    const fits = async (path: string, context: "desktop" | "phone") => {
      const page = await open(path, context);
      await page.locator("main .card, main .stats, main .state").first().waitFor();
      await page.locator(".loading").first().waitFor({ state: "detached" });
      if (await page.locator(".chart").count()) await page.locator(".chart svg").first().waitFor();
      // Charts are drawn again at their measured width once the layout settles.
      await page.waitForTimeout(250);
      const wider = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
      expect(wider, `${path} is wider than the ${context} screen`).toBeLessThanOrEqual(0);
      expect(await page.evaluate<string[]>(OVERFLOWING_TEXT), `${path} at ${context} width`).toEqual([]);
      if (context === "phone" && /^\/(validators|predictions\/BTC|tx\/)?$/.test(path.replace(/0x.*/, ""))) {
        await shot(page, `${path.split("/")[1] || "home"}-phone`);
      }
      await page.close();
    };
    // A few pages at a time: each mostly waits for the gateway and for its layout to settle.
    const checks = (["desktop", "phone"] as const).flatMap((context) =>
      pages.map((path) => ({ path, context })),
    );
    for (let i = 0; i < checks.length; i += PAGES_AT_ONCE) {
      await Promise.all(checks.slice(i, i + PAGES_AT_ONCE).map(({ path, context }) => fits(path, context)));
    }
    const page = await open("/", "phone");
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("link", { name: "Validators" }).click();
    await page.waitForURL("**/validators");
    // A validator's history charts (uptime labelled in percent) fit the phone too.
    await page.getByRole("button", { name: "History" }).first().click();
    await page.locator("svg[aria-label^='Uptime per epoch']").waitFor();
    await page.waitForTimeout(250);
    expect(await page.evaluate<string[]>(OVERFLOWING_TEXT), "validator history at phone width").toEqual([]);
  }, 240_000); // some 40 page loads: on a busy machine, well over the default minute

  it("never contacts a host other than this machine", () => {
    expect(foreignRequests).toEqual([]);
  });

  it("never throws an error no page catches", () => {
    expect(pageErrors).toEqual([]);
  });
});
