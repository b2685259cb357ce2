import { createTx } from "@ethereumjs/tx";
import { bytesToHex, concatBytes, hexToBytes } from "@ethereumjs/util";
import type { NetworkFile } from "../../config/network.js";
import { testConfig } from "../../config/node-config.js";
import { networkFromGenesis } from "../../import/datadir-network.js";
import { createNode, type StrataNode } from "../../node.js";

/** The funded sender of the tiny chain (the first well-known test account). */
const TINY_SENDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const SENDER_KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");

/** A contract placed in the tiny genesis: it returns storage slot 0 (`SLOAD(0)`), which holds 42. */
export const TINY_CONTRACT = "0x00000000000000000000000000000000000c0de1";
/** Genesis timestamp of the tiny chain; Prague activates 20 seconds later (timestamp-scheduled). */
const TINY_GENESIS_TIME = 1_000;
/** When Prague activates on the tiny chain: block 1 is Cancun, blocks 2 and 3 Prague. */
export const TINY_PRAGUE_TIME = 1_020;

/** A geth-format genesis: block-scheduled forks to London, the merge, Shanghai/Cancun at genesis, Prague by timestamp. */
export function tinyGenesis(chainId = 4242): Record<string, unknown> {
  return {
    config: {
      chainId,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      mergeNetsplitBlock: 0,
      terminalTotalDifficulty: 0,
      shanghaiTime: TINY_GENESIS_TIME,
      cancunTime: TINY_GENESIS_TIME,
      pragueTime: TINY_PRAGUE_TIME,
      blobSchedule: {
        cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
        prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      },
    },
    nonce: "0x0",
    timestamp: `0x${TINY_GENESIS_TIME.toString(16)}`,
    extraData: "0x74696e79",
    gasLimit: "0x1c9c380",
    difficulty: "0x0",
    baseFeePerGas: null,
    alloc: {
      [TINY_SENDER.slice(2)]: { balance: "0x3635c9adc5dea00000" },
      [TINY_CONTRACT]: {
        balance: "0x0",
        nonce: "0x5",
        code: "0x60005460005260206000f3",
        storage: {
          "0x00": "0x2a",
          "0x01": "0x0000000000000000000000000000000000000000000000000000000000000007",
        },
      },
    },
  };
}

/** A short chain built by a real node from {@link tinyGenesis}, and that node, still serving. */
export interface TinyChain {
  readonly genesis: Record<string, unknown>;
  readonly network: NetworkFile;
  /** Blocks 1..3, each RLP-encoded. */
  readonly blocks: readonly Uint8Array[];
  /** The blocks one after another, as in a chain.rlp file. */
  readonly chainFile: Uint8Array;
  readonly node: StrataNode;
  /** Sends a raw JSON-RPC request text to the source node and returns its answer text. */
  ask(request: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Builds three blocks with a real node on the tiny genesis (a transfer, a contract call, a contract
 * creation), at fixed timestamps so the chain is the same on every run and crosses the Prague fork.
 */
export async function buildTinyChain(): Promise<TinyChain> {
  const genesis = tinyGenesis();
  const network = networkFromGenesis(genesis, "tiny genesis");
  const node = await createNode(testConfig({ network, mining: { mode: "manual" } }));
  await node.start();
  const ask = async (request: string): Promise<string> => {
    const response = await fetch(node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: request,
    });
    return response.text();
  };
  const send = async (nonce: bigint, to: `0x${string}` | undefined, data: `0x${string}`): Promise<void> => {
    const tx = createTx(
      {
        type: 2,
        nonce,
        ...(to === undefined ? {} : { to }),
        data,
        value: to === undefined ? 0n : 1000n,
        gasLimit: 200_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      },
      { common: node.chain.common },
    ).sign(SENDER_KEY);
    const answer = JSON.parse(
      await ask(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "eth_sendRawTransaction",
          params: [bytesToHex(tx.serialize())],
        }),
      ),
    ) as { error?: { message: string } };
    if (answer.error) throw new Error(`tiny chain: ${answer.error.message}`);
  };
  const mineAt = async (timestamp: number): Promise<void> => {
    node.producer.setNextTimestamp(BigInt(timestamp));
    await node.producer.mine(1);
  };
  await send(0n, "0x00000000000000000000000000000000000000aa", "0x");
  await mineAt(TINY_GENESIS_TIME + 12);
  await send(1n, TINY_CONTRACT, "0x01");
  await mineAt(TINY_GENESIS_TIME + 24);
  // Creates a contract whose code is the single byte 0x00 (STOP), and emits no log.
  await send(2n, undefined, "0x600060005360016000f3");
  await mineAt(TINY_GENESIS_TIME + 36);
  const blocks = [1n, 2n, 3n].map((n) => node.chain.blockByNumber(n)!.serialize());
  return {
    genesis,
    network,
    blocks,
    chainFile: concatBytes(...blocks),
    node,
    ask,
    stop: () => node.stop(),
  };
}
