import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  parseGwei,
} from "viem";
import { devAccount0 } from "../accounts.js";
import { deployErc20, ERC20_ABI } from "../erc20.js";
import { CHAIN_ID } from "../targets.js";
import { rpcLoadScenario } from "./rpcLoad.js";

const RECIPIENT = "0x00000000000000000000000000000000000000b0";

export const traceTransaction = rpcLoadScenario({
  name: "traceTransaction",
  description:
    "debug_traceTransaction with the callTracer of an ERC-20 transfer mined alone in its block, one request at a time: the latency of replaying a small block up to the transaction.",
  connections: 1,
  request: async (ctx) => {
    const token = await deployErc20(ctx);
    const chain = defineChain({
      id: CHAIN_ID,
      name: "bench",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [ctx.node.url] } },
    });
    const transport = http(ctx.node.url, { batch: false, retryCount: 0 });
    const wallet = createWalletClient({ account: devAccount0(), chain, transport });
    const client = createPublicClient({ chain, transport });
    const hash = await wallet.sendTransaction({
      to: token,
      data: encodeFunctionData({ abi: ERC20_ABI, functionName: "transfer", args: [RECIPIENT, 1n] }),
      gas: 100_000n,
      maxFeePerGas: parseGwei("100"),
      maxPriorityFeePerGas: parseGwei("1"),
    });
    await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 60_000 });
    return { method: "debug_traceTransaction", params: [hash, { tracer: "callTracer" }] };
  },
  expect: (result) => {
    const frame = result as { type?: string; to?: string; calls?: unknown };
    if (frame.type !== "CALL" || typeof frame.to !== "string") {
      throw new Error(`debug_traceTransaction: expected a CALL frame, got ${JSON.stringify(result)}`);
    }
    return '"type":"CALL"';
  },
});
