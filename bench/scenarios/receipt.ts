import { type Hex, keccak256, parseGwei } from "viem";
import { devAccounts } from "../accounts.js";
import { errorNote, loadMeasurement, runHttpLoad } from "../load.js";
import { hexToNumber, type RpcClient } from "../rpc.js";
import { mineBlock, oncePerNode } from "./node-setup.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

/** Transfers in the one block the receipts are read from, from SENDERS dev accounts. */
const TRANSFERS = 1_000;
const SENDERS = 10;
/** The transaction whose receipt is polled: one in the middle of the block. */
const POLLED = TRANSFERS / 2;
const RECIPIENT: Hex = "0x00000000000000000000000000000000000b0b00";

/** Signs TRANSFERS plain transfers, round-robin over the senders from their current nonces. */
async function signTransfers(rpc: RpcClient): Promise<Hex[]> {
  const chainId = hexToNumber(await rpc.call("eth_chainId"));
  const senders = devAccounts().slice(0, SENDERS);
  const nonces = await Promise.all(
    senders.map(async (s) => hexToNumber(await rpc.call("eth_getTransactionCount", [s.address, "latest"]))),
  );
  return Promise.all(
    Array.from({ length: TRANSFERS }, (_, i) =>
      senders[i % SENDERS]!.signTransaction({
        chainId,
        nonce: nonces[i % SENDERS]! + Math.floor(i / SENDERS),
        to: RECIPIENT,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas: parseGwei("100"),
        maxPriorityFeePerGas: parseGwei("1"),
        type: "eip1559",
      }),
    ),
  );
}

/** Mines every transfer into one block and returns the polled transaction's hash. */
async function prepareBlock(rpc: RpcClient, ctx: ScenarioContext): Promise<Hex> {
  const raws = await signTransfers(rpc);
  await mineBlock(rpc, raws);
  const hash = keccak256(raws[POLLED]!);
  const receipt = await rpc.call<{ status?: string; blockNumber?: string } | null>(
    "eth_getTransactionReceipt",
    [hash],
  );
  if (receipt?.status !== "0x1" || !receipt.blockNumber)
    throw new Error(`transfer not mined: ${JSON.stringify(receipt)}`);
  const count = hexToNumber(await rpc.call("eth_getBlockTransactionCountByNumber", [receipt.blockNumber]));
  if (count !== TRANSFERS) throw new Error(`expected one block of ${TRANSFERS} transfers, got ${count}`);
  ctx.log(`mined ${TRANSFERS} transfers into block ${hexToNumber(receipt.blockNumber)}`);
  return hash;
}

/**
 * eth_getTransactionReceipt of a transfer in a block of 1,000: what every client waiting for its
 * transaction polls (viem's waitForTransactionReceipt, ethers' wait). The block is mined once per node.
 */
export const receipt: Scenario = {
  name: "receipt",
  description: "eth_getTransactionReceipt of a transfer in a block of 1,000 transfers (receipt polling).",
  node: "shared",
  repeatable: true,
  modes: () => ["manual"],
  async run(ctx: ScenarioContext): Promise<Measurement> {
    const hash = await oncePerNode(ctx, "receipt:block", (rpc) => prepareBlock(rpc, ctx));
    const load = await runHttpLoad({
      url: ctx.node.url,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getTransactionReceipt", params: [hash] }),
      verifyBody: (b) => b.includes(`"transactionHash":"${hash}"`) && b.includes('"status":"0x1"'),
      connections: ctx.settings.connections,
      durationSeconds: ctx.settings.durationSeconds,
      warmupSeconds: ctx.settings.warmupSeconds,
    });
    return loadMeasurement(load, [...errorNote(load), `block of ${TRANSFERS} transfers`], { hash });
  },
};
