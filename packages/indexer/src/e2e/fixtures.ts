import { TestToken, testTokenCreationCode } from "@strata/contracts";
import {
  concat,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  toHex,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";

/** The i-th account of the dev mnemonic. */
export const devAccount = (index: number) =>
  mnemonicToAccount("test test test test test test test test test test test junk", { addressIndex: index });

/** A started test node (see `startTestNode`) that sends transactions with viem. */
export interface DevChain extends TestNode {
  /** Sends a transaction from dev account `from` and waits for its receipt. */
  send(
    from: number,
    tx: { to?: Hex; data?: Hex; value?: bigint; gas?: bigint },
  ): Promise<{ hash: Hex; status: string; contractAddress: Hex | null | undefined }>;
}

/** Starts an in-memory dev node on port 0 (instant mining unless told otherwise). */
export async function startDevChain(mining: "instant" | "manual" = "instant"): Promise<DevChain> {
  const started = await startTestNode({ mining: { mode: mining } });
  const chain = defineChain({
    id: 1337,
    name: "Strata dev",
    nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
    rpcUrls: { default: { http: [started.url] } },
  });
  const transport = http(started.url);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 });
  return {
    ...started,
    async send(from, tx) {
      const wallet = createWalletClient({ chain, transport, account: devAccount(from) });
      const hash = await wallet.sendTransaction({ ...tx, account: devAccount(from), chain });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return { hash, status: receipt.status, contractAddress: receipt.contractAddress };
    },
  };
}

/** What {@link seedActivity} sent. */
export interface Activity {
  readonly transfer: Hex;
  readonly deploy: Hex;
  readonly token: Hex;
  readonly tokenTransfer: Hex;
  readonly reverted: Hex;
}

/**
 * Sends a value transfer, deploys a TestToken ("Test Token", TTK), transfers 250 TTK from account 0
 * to account 2, and sends a token transfer from account 3 (who holds none) that reverts.
 */
export async function seedActivity(chain: DevChain): Promise<Activity> {
  const transfer = await chain.send(0, { to: devAccount(1).address, value: parseEther("1.5") });
  const deploy = await chain.send(0, {
    data: testTokenCreationCode({ name: "Test Token", symbol: "TTK", initialSupply: parseEther("1000000") })
      .data,
  });
  const token = deploy.contractAddress!.toLowerCase() as Hex;
  const transferData = (to: Hex, amount: bigint) =>
    encodeFunctionData({ abi: TestToken.abi, functionName: "transfer", args: [to, amount] });
  const tokenTransfer = await chain.send(0, {
    to: token,
    data: transferData(devAccount(2).address, parseEther("250")),
  });
  const reverted = await chain.send(3, {
    to: token,
    data: transferData(devAccount(4).address, 1n),
    gas: 100_000n,
  });
  if (reverted.status !== "reverted") throw new Error("expected the token transfer from account 3 to revert");
  return {
    transfer: transfer.hash,
    deploy: deploy.hash,
    token,
    tokenTransfer: tokenTransfer.hash,
    reverted: reverted.hash,
  };
}

/** Bytes no text column takes as they are: NUL, invalid UTF-8 (a lone continuation byte, 0xff), then ASCII. */
export const HOSTILE_TEXT_BYTES = "0x4e756c00ff80c3284f4b" as Hex;
/** How {@link HOSTILE_TEXT_BYTES} reads once stored: each NUL and invalid byte is U+FFFD. */
export const HOSTILE_TEXT_STORED = "Nul\ufffd\ufffd\ufffd\ufffd(OK";

/**
 * Deploys a TestToken whose `name()` returns {@link HOSTILE_TEXT_BYTES} and whose `symbol()` is 600
 * bytes long: ABI `string` and `bytes` encode alike, so the constructor takes raw bytes.
 */
export async function deployHostileToken(chain: DevChain, from = 0): Promise<Hex> {
  const args = encodeAbiParameters(
    [{ type: "bytes" }, { type: "bytes" }, { type: "uint256" }],
    [HOSTILE_TEXT_BYTES, toHex("S".repeat(600)), parseEther("1000")],
  );
  const deployed = await chain.send(from, { data: concat([TestToken.bytecode, args]) });
  return deployed.contractAddress!.toLowerCase() as Hex;
}

/**
 * Deploys a contract that reverts every call with `Error(string)` carrying {@link HOSTILE_TEXT_BYTES},
 * calls it with a fixed gas limit (so the failing call is mined) and returns that transaction's hash.
 */
export async function sendHostileRevert(chain: DevChain, from = 0): Promise<Hex> {
  const payload = concat(["0x08c379a0", encodeAbiParameters([{ type: "bytes" }], [HOSTILE_TEXT_BYTES])]);
  const length = (payload.length - 2) / 2;
  const push = (n: number) => `60${n.toString(16).padStart(2, "0")}`;
  // CODECOPY(0, 12, length); REVERT(0, length); then the payload (at byte 12).
  const runtime =
    `0x${push(length)}${push(0x0c)}${push(0)}39${push(length)}${push(0)}fd${payload.slice(2)}` as Hex;
  const runtimeLength = (runtime.length - 2) / 2;
  // CODECOPY(0, 12, runtimeLength); RETURN(0, runtimeLength); then the runtime (at byte 12).
  const init =
    `0x${push(runtimeLength)}${push(0x0c)}${push(0)}39${push(runtimeLength)}${push(0)}f3${runtime.slice(2)}` as Hex;
  const deployed = await chain.send(from, { data: init });
  const reverted = await chain.send(from, { to: deployed.contractAddress!, gas: 100_000n });
  if (reverted.status !== "reverted")
    throw new Error("expected the call to the reverting contract to revert");
  return reverted.hash;
}
