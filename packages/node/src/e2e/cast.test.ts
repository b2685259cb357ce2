import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { TestToken } from "@strata/contracts";
import { encodeAbiParameters, keccak256, parseEther, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { devAccount, rpc, viemClients } from "./clients.js";

const CAST = join(
  dirname(createRequire(import.meta.url).resolve("@foundry-rs/cast-linux-amd64/package.json")),
  "bin",
  "cast",
);
const KEY0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const DEV0 = devAccount(0).address;
const DEV1 = devAccount(1).address;
const SUPPLY = parseEther("123456789");
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const TEN_THOUSAND = (10_000n * 10n ** 18n).toString();
/** Anything cast would fetch from outside goes to this closed local port instead. */
const DEAD_PROXY = "http://127.0.0.1:9";

let t: TestNode;
let token: `0x${string}`;
let deployHash: `0x${string}`;
let workdir: string;

interface CastResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs cast against the test node; never throws on a non-zero exit. */
function runCast(args: string[]): Promise<CastResult> {
  return new Promise((resolve, reject) => {
    execFile(
      CAST,
      [args[0]!, "--rpc-url", t.url, ...args.slice(1)],
      {
        timeout: 15_000,
        cwd: workdir,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: workdir,
          FOUNDRY_DISABLE_NIGHTLY_WARNING: "1",
          NO_COLOR: "1",
          HTTP_PROXY: DEAD_PROXY,
          HTTPS_PROXY: DEAD_PROXY,
          ALL_PROXY: DEAD_PROXY,
          http_proxy: DEAD_PROXY,
          https_proxy: DEAD_PROXY,
          all_proxy: DEAD_PROXY,
          NO_PROXY: "127.0.0.1",
          no_proxy: "127.0.0.1",
        },
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(new Error(`cast ${args.join(" ")}: ${error.message}\n${stderr}`));
          return;
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs cast, expects success and returns its trimmed stdout. */
async function cast(...args: string[]): Promise<string> {
  const result = await runCast(args);
  if (result.code !== 0) {
    throw new Error(`cast ${args.join(" ")} exited ${result.code}: ${result.stderr}${result.stdout}`);
  }
  return result.stdout.trim();
}

async function castJson<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  return JSON.parse(await cast(...args)) as T;
}

interface Receipt {
  status: string;
  type: string;
  transactionHash: `0x${string}`;
  blockNumber: string;
  gasUsed: string;
  contractAddress: string | null;
  logs: { address: string; topics: string[]; data: string; transactionHash: string }[];
}

/** The next block's base fee by EIP-1559 (elasticity 2, change denominator 8). */
function nextBaseFee(baseFee: bigint, gasUsed: bigint, gasLimit: bigint): bigint {
  const target = gasLimit / 2n;
  if (gasUsed === target) return baseFee;
  if (gasUsed > target) {
    const delta = (baseFee * (gasUsed - target)) / target / 8n;
    return baseFee + (delta > 1n ? delta : 1n);
  }
  return baseFee - (baseFee * (target - gasUsed)) / target / 8n;
}

/** `cast age`'s rendering of a unix timestamp, e.g. "Thu Jan  1 00:00:00 1970 UTC". */
function castDate(seconds: bigint): string {
  const d = new Date(Number(seconds) * 1000);
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const two = (n: number) => String(n).padStart(2, "0");
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  const day = String(d.getUTCDate()).padStart(2, " ");
  return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${day} ${time} ${d.getUTCFullYear()} UTC`;
}

/** The storage slot of `balanceOf[holder]` (the mapping is TestToken's slot 3). */
function balanceSlot(holder: `0x${string}`): string {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [holder, 3n]));
}

const pad32 = (hex: string) => `0x${hex.slice(2).toLowerCase().padStart(64, "0")}`;

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), "strata-cast-"));
  t = await startTestNode();
  const { wallet, publicClient } = viemClients(t.url);
  deployHash = await wallet.deployContract({
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ["Cast", "CST", SUPPLY],
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: deployHash });
  expect(receipt.status).toBe("success");
  token = receipt.contractAddress!;
});

afterAll(async () => {
  await t?.stop();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

describe("cast against a dev node", () => {
  it("reads the chain id and the block number", async () => {
    expect(await cast("chain-id")).toBe("1337");
    const height = await cast("block-number");
    expect(height).toMatch(/^\d+$/);
    expect(Number(height)).toBeGreaterThanOrEqual(1);
    const fromRpc = await rpc(t.url, "eth_blockNumber");
    expect(BigInt(height)).toBe(BigInt(fromRpc.result as string));
  });

  it("reads balances in wei and ether, at latest and at genesis", async () => {
    expect(await cast("balance", DEV0, "--block", "0")).toBe(TEN_THOUSAND);
    expect(await cast("balance", devAccount(9).address)).toBe(TEN_THOUSAND);
    expect(await cast("balance", "--ether", devAccount(9).address)).toBe("10000.000000000000000000");
    // dev 0 paid for the deployment
    expect(BigInt(await cast("balance", DEV0))).toBeLessThan(BigInt(TEN_THOUSAND));
  });

  it("sends a value transfer and reads its receipt and transaction", async () => {
    const to = devAccount(8).address;
    const nonceBefore = BigInt(await cast("nonce", DEV0));
    expect(nonceBefore).toBeGreaterThanOrEqual(1n);
    const sent = await castJson<Receipt>("send", "--json", "--private-key", KEY0, to, "--value", "1ether");
    expect(sent.status).toBe("0x1");
    expect(sent.type).toBe("0x2");
    const hash = sent.transactionHash;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);

    // cast renders the single field as a boolean, the whole receipt as "1 (success)"
    expect(await cast("receipt", hash, "status")).toBe("true");
    const pretty = await cast("receipt", hash);
    expect(pretty).toMatch(/^status\s+1 \(success\)$/m);
    expect(pretty).toMatch(/^gasUsed\s+21000$/m);
    expect(pretty).toMatch(new RegExp(`^transactionHash\\s+${hash}$`, "m"));

    const tx = await cast("tx", hash);
    expect(tx).toMatch(new RegExp(`^from\\s+${DEV0}$`, "m"));
    expect(tx).toMatch(new RegExp(`^to\\s+${to}$`, "m"));
    expect(tx).toMatch(/^value\s+1000000000000000000$/m);
    expect(tx).toMatch(/^chainId\s+1337$/m);
    expect(tx).toMatch(/^type\s+2$/m);
    expect(tx).toMatch(new RegExp(`^nonce\\s+${nonceBefore}$`, "m"));
    expect(await cast("tx", hash, "value")).toBe("1000000000000000000");
    const txJson = await castJson("tx", "--json", hash);
    expect(txJson).toMatchObject({
      hash,
      from: DEV0.toLowerCase(),
      to: to.toLowerCase(),
      chainId: "0x539",
      type: "0x2",
      value: "0xde0b6b3a7640000",
      blockNumber: sent.blockNumber,
    });

    expect(BigInt(await cast("nonce", DEV0))).toBe(nonceBefore + 1n);
    expect(await cast("nonce", "--block", "0", DEV0)).toBe("0");
    expect(await cast("nonce", devAccount(7).address)).toBe("0");
    expect(await cast("balance", to)).toBe((10_001n * 10n ** 18n).toString());
  });

  it("reports an unknown transaction as not found", async () => {
    const missing = `0x${"11".repeat(32)}`;
    const result = await runCast(["tx", missing]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("not found");
  });

  it("reads the latest block as JSON and by field", async () => {
    const block = await castJson<Record<string, unknown>>("block", "latest", "--json");
    const height = BigInt(await cast("block-number"));
    expect(BigInt(block.number as string)).toBe(height);
    expect(block.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(block.parentHash).toBe(await cast("block", (height - 1n).toString(), "--field", "hash"));
    expect(block.miner).toMatch(/^0x[0-9a-f]{40}$/);
    expect(block.sha3Uncles).toBe("0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347");
    expect(block.logsBloom).toMatch(/^0x[0-9a-f]{512}$/);
    expect(BigInt(block.gasLimit as string)).toBeGreaterThan(0n);
    expect(BigInt(block.gasUsed as string)).toBeGreaterThan(0n);
    expect(BigInt(block.baseFeePerGas as string)).toBeGreaterThan(0n);
    expect(Array.isArray(block.transactions)).toBe(true);
    expect((block.transactions as unknown[]).length).toBeGreaterThan(0);
    expect((block.transactions as unknown[])[0]).toMatch(/^0x[0-9a-f]{64}$/);
    expect(block.uncles).toEqual([]);
    expect(await cast("block", "latest", "--field", "hash")).toBe(block.hash);
    const full = await castJson<{ transactions: { hash: string; chainId: string }[] }>(
      "block",
      "latest",
      "--full",
      "--json",
    );
    expect(full.transactions[0]?.hash).toBe((block.transactions as string[])[0]);
    expect(full.transactions[0]?.chainId).toBe("0x539");
  });

  it("reads the code of the deployed token", async () => {
    expect(await cast("code", token)).toBe(TestToken.deployedBytecode.toLowerCase());
    expect(await cast("codesize", token)).toBe(String((TestToken.deployedBytecode.length - 2) / 2));
    expect(await cast("code", devAccount(7).address)).toBe("0x");
  });

  it("calls balanceOf with a decoded return type", async () => {
    const out = await cast("call", token, "balanceOf(address)(uint256)", DEV0);
    expect(out.split(" ")[0]).toBe(SUPPLY.toString());
    const raw = await cast("call", token, "balanceOf(address)", devAccount(7).address);
    expect(raw).toBe(pad32("0x0"));
    expect(await cast("call", token, "symbol()(string)")).toBe('"CST"');
    const deployedAt = BigInt(await cast("receipt", deployHash, "blockNumber")).toString();
    const atDeployment = await cast(
      "call",
      token,
      "balanceOf(address)(uint256)",
      DEV0,
      "--block",
      deployedAt,
    );
    expect(atDeployment.split(" ")[0]).toBe(SUPPLY.toString());
    expect(await cast("code", token, "--block", "0")).toBe("0x");
  });

  it("shows the revert reason of a failing call", async () => {
    const result = await runCast(["call", token, "fail(string)", "nope"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("execution reverted: nope");
    const custom = await runCast(["call", token, "boom()"]);
    expect(custom.code).not.toBe(0);
    expect(custom.stderr).toContain("execution reverted");
    // Boom(uint256) selector with 42
    expect(custom.stderr).toContain(`0x1167d8fb${(42).toString(16).padStart(64, "0")}`);
  });

  it("estimates gas for transfers, calls and reverts", async () => {
    expect(await cast("estimate", "--from", DEV0, devAccount(7).address, "--value", "1")).toBe("21000");
    const estimate = BigInt(
      await cast("estimate", "--from", DEV0, token, "transfer(address,uint256)", DEV1, "5"),
    );
    expect(estimate).toBeGreaterThan(21_000n);
    const sent = await castJson<Receipt>(
      "send",
      "--json",
      "--private-key",
      KEY0,
      "--gas-limit",
      estimate.toString(),
      token,
      "transfer(address,uint256)",
      DEV1,
      "5",
    );
    expect(sent.status).toBe("0x1");
    const used = BigInt(sent.gasUsed);
    expect(estimate).toBeGreaterThanOrEqual(used);
    // geth-style binary search stops within 1.5 %
    expect(estimate).toBeLessThanOrEqual((used * 1015n) / 1000n + 1n);

    const failing = await runCast(["estimate", token, "fail(string)", "nope"]);
    expect(failing.code).not.toBe(0);
    expect(failing.stderr).toContain("execution reverted: nope");
    const broke = await runCast([
      "estimate",
      "--from",
      devAccount(7).address,
      token,
      "transfer(address,uint256)",
      DEV1,
      "1",
    ]);
    expect(broke.code).not.toBe(0);
    expect(broke.stderr).toContain("ERC20: transfer amount exceeds balance");
  });

  it("refuses to send a transaction that would revert", async () => {
    const nonce = await cast("nonce", DEV0);
    const result = await runCast(["send", "--private-key", KEY0, token, "fail(string)", "nope"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("nope");
    expect(await cast("nonce", DEV0)).toBe(nonce);
  });

  it("sends a token transfer and finds its Transfer event", async () => {
    const to = devAccount(4).address;
    const amount = parseEther("3.5");
    const sent = await castJson<Receipt>(
      "send",
      "--json",
      "--private-key",
      KEY0,
      token,
      "transfer(address,uint256)",
      to,
      amount.toString(),
    );
    expect(sent.status).toBe("0x1");
    expect(sent.logs).toHaveLength(1);
    const log = sent.logs[0]!;
    expect(log.address).toBe(token.toLowerCase());
    expect(log.topics).toEqual([TRANSFER_TOPIC, pad32(DEV0), pad32(to)]);
    expect(BigInt(log.data)).toBe(amount);

    const receiptLogs = JSON.parse(await cast("receipt", sent.transactionHash, "logs")) as Receipt["logs"];
    expect(receiptLogs.map((l) => l.topics)).toEqual([[TRANSFER_TOPIC, pad32(DEV0), pad32(to)]]);

    const block = BigInt(sent.blockNumber).toString();
    const found = await castJson<Receipt["logs"]>(
      "logs",
      "--json",
      "--from-block",
      block,
      "--to-block",
      block,
      "--address",
      token,
      "Transfer(address indexed from,address indexed to,uint256 value)",
      DEV0,
      to,
    );
    expect(found).toHaveLength(1);
    expect(found[0]?.transactionHash).toBe(sent.transactionHash);
    expect(BigInt(found[0]!.data)).toBe(amount);

    const all = await castJson<Receipt["logs"]>("logs", "--json", "--from-block", "0", "--address", token);
    // the mint at deployment, then the transfers
    expect(all[0]?.topics).toEqual([TRANSFER_TOPIC, pad32("0x0"), pad32(DEV0)]);
    expect(all.at(-1)?.transactionHash).toBe(sent.transactionHash);

    const balance = await cast("call", token, "balanceOf(address)(uint256)", to);
    expect(balance.split(" ")[0]).toBe(amount.toString());
  });

  it("sends a legacy (EIP-155) transaction", async () => {
    const sent = await castJson<Receipt>(
      "send",
      "--json",
      "--legacy",
      "--private-key",
      KEY1,
      devAccount(6).address,
      "--value",
      "7",
    );
    expect(sent.status).toBe("0x1");
    expect(sent.type).toBe("0x0");
    const tx = await castJson<Record<string, string>>("tx", "--json", sent.transactionHash);
    expect(tx.type).toBe("0x0");
    expect(BigInt(tx.gasPrice!)).toBeGreaterThan(0n);
    expect(tx.chainId).toBe("0x539");
    expect([1337n * 2n + 35n, 1337n * 2n + 36n]).toContain(BigInt(tx.v!));
    expect(tx.maxFeePerGas).toBeUndefined();
    expect(await cast("balance", devAccount(6).address)).toBe((10_000n * 10n ** 18n + 7n).toString());
  });

  it("reads the gas price and the base fee", async () => {
    const latest = await castJson<Record<string, string>>("block", "latest", "--json");
    const parent = await castJson<Record<string, string>>(
      "block",
      (BigInt(latest.number!) - 1n).toString(),
      "--json",
    );
    const baseFee = BigInt(await cast("base-fee"));
    expect(baseFee).toBe(BigInt(latest.baseFeePerGas!));
    expect(baseFee).toBe(
      nextBaseFee(BigInt(parent.baseFeePerGas!), BigInt(parent.gasUsed!), BigInt(parent.gasLimit!)),
    );
    expect(BigInt(await cast("base-fee", "0"))).toBe(10n ** 9n);
    const tip = BigInt(JSON.parse(await cast("rpc", "eth_maxPriorityFeePerGas")) as string);
    const gasPrice = BigInt(await cast("gas-price"));
    const next = nextBaseFee(baseFee, BigInt(latest.gasUsed!), BigInt(latest.gasLimit!));
    expect(gasPrice).toBe(next + tip);
  });

  it("reads block timestamps and ages", async () => {
    const timestamp = BigInt(await cast("block", "latest", "--field", "timestamp"));
    const now = BigInt(Math.floor(Date.now() / 1000));
    expect(timestamp).toBeGreaterThan(now - 120n);
    expect(timestamp).toBeLessThanOrEqual(now + 5n);
    expect(await cast("age")).toBe(castDate(timestamp));
    expect(await cast("age", "latest")).toBe(castDate(timestamp));
    const genesis = BigInt(await cast("block", "0", "--field", "timestamp"));
    expect(genesis).toBeLessThanOrEqual(timestamp);
    expect(await cast("age", "0")).toBe(castDate(genesis));
  });

  it("reads the fee history with a numeric block count, as geth accepts", async () => {
    const history = await castJson<Record<string, unknown>>(
      "rpc",
      "eth_feeHistory",
      "4",
      "latest",
      "[25,75]",
    );
    const height = BigInt(await cast("block-number"));
    expect(BigInt(history.oldestBlock as string)).toBe(height - 3n);
    expect(history.baseFeePerGas).toHaveLength(5);
    expect(history.gasUsedRatio).toHaveLength(4);
    expect(history.reward).toHaveLength(4);
  });

  it("reads the fee history with a hex block count", async () => {
    const history = await castJson<{
      oldestBlock: string;
      baseFeePerGas: string[];
      gasUsedRatio: number[];
      reward: string[][];
    }>("rpc", "--raw", "eth_feeHistory", '["0x4","latest",[25,75]]');
    const latest = await castJson<Record<string, string>>("block", "latest", "--json");
    const height = BigInt(latest.number!);
    expect(BigInt(history.oldestBlock)).toBe(height - 3n);
    expect(history.baseFeePerGas).toHaveLength(5);
    expect(BigInt(history.baseFeePerGas[3]!)).toBe(BigInt(latest.baseFeePerGas!));
    expect(BigInt(history.baseFeePerGas[4]!)).toBe(
      nextBaseFee(BigInt(latest.baseFeePerGas!), BigInt(latest.gasUsed!), BigInt(latest.gasLimit!)),
    );
    expect(history.gasUsedRatio).toHaveLength(4);
    expect(history.gasUsedRatio[3]).toBeCloseTo(Number(latest.gasUsed) / Number(latest.gasLimit), 6);
    expect(history.reward).toHaveLength(4);
    for (const row of history.reward) {
      expect(row).toHaveLength(2);
      expect(BigInt(row[0]!)).toBeLessThanOrEqual(BigInt(row[1]!));
    }
  });

  it("reads raw storage slots of the token", async () => {
    expect(await cast("storage", token, "2")).toBe(pad32(toHex(SUPPLY)));
    // short string "Cast": the bytes left-aligned, length * 2 in the last byte
    expect(await cast("storage", token, "0")).toBe(
      `0x${Buffer.from("Cast").toString("hex").padEnd(62, "0")}08`,
    );
    expect(await cast("storage", token, "2", "--block", "0")).toBe(pad32("0x0"));
    expect(BigInt(await cast("storage", token, balanceSlot(devAccount(4).address)))).toBe(parseEther("3.5"));
  });

  it("builds an access list holding the token's balance slots", async () => {
    const list = await castJson<{
      accessList: { address: string; storageKeys: string[] }[];
      gasUsed: string;
    }>("access-list", "--json", "--from", DEV0, token, "transfer(address,uint256)", DEV1, "5");
    expect(list.accessList).toHaveLength(1);
    expect(list.accessList[0]?.address).toBe(token.toLowerCase());
    expect([...(list.accessList[0]?.storageKeys ?? [])].sort()).toEqual(
      [balanceSlot(DEV0), balanceSlot(DEV1)].sort(),
    );
  });
});
