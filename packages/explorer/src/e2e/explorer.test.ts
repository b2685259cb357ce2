import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { StrataNode } from "@strata/node";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { parseEther } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ExplorerServer, startExplorerServer } from "../static-server.js";
import { launchBrowser } from "./browser.js";
import { buildAppForTest } from "./build-app.js";
import { type Activity, devWallet, makeActivity } from "./chain-activity.js";
import { type ApiStack, openIndexDatabase, startDevNode } from "./real-stack.js";

/** Screenshots land here (gitignored) for people to look at after a run. */
const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/explorer/", import.meta.url));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const UI_TIMEOUT = 20_000;

const short = (h: string) => `${h.slice(0, 8)}…${h.slice(-4)}`;

describe("block explorer in a browser", () => {
  let node: StrataNode;
  let api: ApiStack;
  let explorer: ExplorerServer;
  let browser: Browser;
  let activity: Activity;
  let webRoot: string;
  let desktop: BrowserContext;
  let phone: BrowserContext;
  const foreignRequests: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    webRoot = await buildAppForTest();
    const index = await openIndexDatabase();
    node = await startDevNode();
    // The indexer follows the node from the start, as in `strata dev`; the activity arrives live.
    api = await index.startApiStack(node.rpcUrl, node.wsUrl);
    activity = await makeActivity(node.rpcUrl, node.devAccounts);
    await api.indexed(Number(node.chain.head.header.number));
    explorer = await startExplorerServer({ apiUrl: api.url, port: 0, root: webRoot });
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
    await api?.close();
    await node?.stop();
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

  it("shows validators, staking, DePIN nodes and predictions", async () => {
    const page = await open("/validators");
    const validators = page.getByTestId("validators-table");
    await validators.locator("tbody tr").first().waitFor();
    expect(await validators.locator("tbody tr").count()).toBeGreaterThan(0);
    await validators.getByText("5,000 STRA").first().waitFor();
    await page.getByRole("button", { name: "History" }).first().click();
    await page.locator("svg[aria-label^='Blocks proposed and missed per epoch']").waitFor();
    await shot(page, "validators-desktop");

    await page.getByRole("link", { name: "Staking" }).click();
    await page.getByTestId("staking-stats").getByText("20,000 STRA").waitFor();
    await shot(page, "staking-desktop");

    await page.getByRole("link", { name: "DePIN" }).click();
    await page.getByText("No DePIN nodes match.").waitFor();

    await page.getByRole("link", { name: "Predictions" }).click();
    await page.getByRole("link", { name: "ETH" }).click();
    await page.getByTestId("prediction-stats").getByText("80 % interval").waitFor();
    await page.locator("svg[aria-label*='80 % interval'] path.band").waitFor();
    await shot(page, "predictions-desktop");
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

  it("fits a phone screen", async () => {
    for (const [path, name] of [
      ["/", "home-phone"],
      [`/tx/${activity.tokenTransferTx}`, "transaction-phone"],
      ["/validators", "validators-phone"],
      ["/predictions", "predictions-phone"],
    ] as const) {
      const page = await open(path, "phone");
      await page.locator("main .card, main .stats").first().waitFor();
      await page.locator(".loading").first().waitFor({ state: "detached" });
      const overflow = await page.evaluate<number>(
        "document.documentElement.scrollWidth - window.innerWidth",
      );
      expect(overflow, `${path} is wider than the phone`).toBeLessThanOrEqual(0);
      await shot(page, name);
      await page.close();
    }
    const page = await open("/", "phone");
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("link", { name: "Validators" }).click();
    await page.waitForURL("**/validators");
  });

  it("never contacts a host other than this machine", () => {
    expect(foreignRequests).toEqual([]);
  });
});
