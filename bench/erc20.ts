import { createPublicClient, createWalletClient, defineChain, type Hex, http, parseGwei } from "viem";
import { TestToken } from "../packages/contracts/src/artifacts.js";
import { devAccount0 } from "./accounts.js";
import type { ScenarioContext } from "./scenarios/types.js";
import { CHAIN_ID } from "./targets.js";

/** Tokens minted to the deployer (18 decimals). */
export const INITIAL_SUPPLY = 1_000_000n * 10n ** 18n;

/** The project's test ERC-20 (committed solc artifact): abi, bytecode and its constructor arguments. */
export const BENCH_TOKEN = {
  abi: TestToken.abi,
  bytecode: TestToken.bytecode,
  args: ["Bench Token", "BENCH", INITIAL_SUPPLY] as const,
};

export const ERC20_ABI = TestToken.abi;

/** Deploys the token from dev account 0 (derived from the dev mnemonic) and returns its address. */
export async function deployErc20(ctx: ScenarioContext): Promise<Hex> {
  const chain = defineChain({
    id: CHAIN_ID,
    name: "bench",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [ctx.node.url] } },
  });
  const transport = http(ctx.node.url, { batch: false, retryCount: 0 });
  const account = devAccount0();
  const wallet = createWalletClient({ account, chain, transport });
  const client = createPublicClient({ chain, transport });
  // Explicit gas and fees keep the deployment independent of estimation RPCs.
  const hash = await wallet.deployContract({
    abi: BENCH_TOKEN.abi,
    bytecode: BENCH_TOKEN.bytecode,
    args: BENCH_TOKEN.args,
    gas: 3_000_000n,
    maxFeePerGas: parseGwei("100"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 60_000 });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`ERC-20 deployment failed (status ${receipt.status})`);
  }
  const balance = await client.readContract({
    address: receipt.contractAddress,
    abi: ERC20_ABI,
    functionName: "balanceOf",
    args: [account.address],
  });
  if (balance !== INITIAL_SUPPLY) throw new Error(`deployed token reports balance ${balance}`);
  ctx.log(`deployed BenchToken at ${receipt.contractAddress} (gas used ${receipt.gasUsed})`);
  return receipt.contractAddress;
}
