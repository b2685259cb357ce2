import {
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  pad,
  parseGwei,
  toHex,
} from "viem";
import { devAccounts } from "../accounts.js";
import { BENCH_TOKEN } from "../erc20.js";
import { errorNote, loadMeasurement, runHttpLoad } from "../load.js";
import { hexToNumber, RpcClient, sleep } from "../rpc.js";
import { mineBlock, oncePerNode } from "./node-setup.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

/** Blocks holding the transfers, and transfers (one per sender) in each. */
const BLOCKS = 1_000;
const SENDERS = 10;
const TRANSFERS = BLOCKS * SENDERS;
/** Transfer i goes to recipient i % RECIPIENTS: each recipient gets 1 % of the transfers. */
const RECIPIENTS = 100;
/** Tokens dev account 0 hands each of the other senders before the transfer blocks. */
const SENDER_TOKENS = 1_000_000n;
/** Concurrent connections for the eth_getLogs loads: each answer can be megabytes. */
const LOAD_CONNECTIONS = 8;
const SETTLE_TIMEOUT_MS = 30_000;
/** Upper bound on building the chain (signing included). */
const PREPARE_TIMEOUT_MS = 120_000;
const SETTLE_FAST_MS = 20;

const TRANSFER_GAS = 100_000n;
const DEPLOY_GAS = 3_000_000n;
const MAX_FEE = parseGwei("100");
const PRIORITY_FEE = parseGwei("1");
/** keccak256("Transfer(address,address,uint256)") */
const TRANSFER_TOPIC: Hex = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

const TRANSFER_ABI = [
  {
    type: "function",
    name: "transfer",
    stateMutability: "nonpayable",
    inputs: [
      { name: "to", type: "address" },
      { name: "value", type: "uint256" },
    ],
    outputs: [{ name: "", type: "bool" }],
  },
] as const;

function recipient(i: number): Hex {
  return getAddress(keccak256(toHex(`strata-bench-log-recipient-${i}`)).slice(0, 42));
}

/** The chain both targets end up with: deployment, token hand-out, then BLOCKS blocks of transfers. */
interface LogChain {
  token: Hex;
  firstBlock: number;
  lastBlock: number;
  /** Hashes of all transfers in the transfer blocks, and of those to recipient 0. */
  transferHashes: Set<string>;
  recipientHashes: Set<string>;
  prepareSeconds: number;
}

interface SignedChain {
  deploy: Hex;
  token: Hex;
  handOut: Hex[];
  /** blocks[b][s]: sender s's transfer in transfer block b. */
  blocks: Hex[][];
  transferHashes: Set<string>;
  recipientHashes: Set<string>;
}

/** Signs every transaction offline; identical for both targets when chain id and nonces match. */
async function signChain(
  ctx: ScenarioContext,
  chainId: number,
  nonces: readonly number[],
): Promise<SignedChain> {
  const key = `getLogs:${chainId}:${nonces.join(",")}`;
  const cached = ctx.cache.get(key) as SignedChain | undefined;
  if (cached) return cached;
  const started = performance.now();
  const senders = devAccounts().slice(0, SENDERS);
  const deployer = senders[0]!;
  const fees = {
    type: "eip1559",
    chainId,
    maxFeePerGas: MAX_FEE,
    maxPriorityFeePerGas: PRIORITY_FEE,
  } as const;
  const next = [...nonces];
  const deploy = await deployer.signTransaction({
    ...fees,
    nonce: next[0]!++,
    gas: DEPLOY_GAS,
    data: encodeDeployData({ abi: BENCH_TOKEN.abi, bytecode: BENCH_TOKEN.bytecode, args: BENCH_TOKEN.args }),
  });
  const token = getContractAddress({ from: deployer.address, nonce: BigInt(nonces[0]!) });
  const transfer = (to: Hex, value: bigint) =>
    encodeFunctionData({ abi: TRANSFER_ABI, functionName: "transfer", args: [to, value] });
  const handOut: Hex[] = [];
  for (const sender of senders.slice(1)) {
    handOut.push(
      await deployer.signTransaction({
        ...fees,
        nonce: next[0]!++,
        gas: TRANSFER_GAS,
        to: token,
        data: transfer(sender.address, SENDER_TOKENS),
      }),
    );
  }
  const blocks: Hex[][] = [];
  const transferHashes = new Set<string>();
  const recipientHashes = new Set<string>();
  for (let b = 0; b < BLOCKS; b++) {
    const txs: Hex[] = [];
    for (const [s, sender] of senders.entries()) {
      const i = b * SENDERS + s;
      const raw = await sender.signTransaction({
        ...fees,
        nonce: next[s]!++,
        gas: TRANSFER_GAS,
        to: token,
        data: transfer(recipient(i % RECIPIENTS), 1n),
      });
      const hash = keccak256(raw);
      transferHashes.add(hash);
      if (i % RECIPIENTS === 0) recipientHashes.add(hash);
      txs.push(raw);
    }
    blocks.push(txs);
  }
  const signed = { deploy, token, handOut, blocks, transferHashes, recipientHashes };
  ctx.cache.set(key, signed);
  ctx.log(
    `signed ${1 + handOut.length + TRANSFERS} transactions in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return signed;
}

async function prepareChain(ctx: ScenarioContext, rpc: RpcClient): Promise<LogChain> {
  const started = performance.now();
  const chainId = hexToNumber(await rpc.call("eth_chainId"));
  const senders = devAccounts().slice(0, SENDERS);
  const nonces = await Promise.all(
    senders.map(async (s) => hexToNumber(await rpc.call("eth_getTransactionCount", [s.address, "latest"]))),
  );
  const signed = await signChain(ctx, chainId, nonces);

  await mineBlock(rpc, [signed.deploy]);
  const deployReceipt = await rpc.call<{ status?: string; contractAddress?: string } | null>(
    "eth_getTransactionReceipt",
    [keccak256(signed.deploy)],
  );
  if (
    deployReceipt?.status !== "0x1" ||
    deployReceipt.contractAddress?.toLowerCase() !== signed.token.toLowerCase()
  ) {
    throw new Error(`token deployment failed: ${JSON.stringify(deployReceipt)}`);
  }
  await mineBlock(rpc, signed.handOut);
  for (const raw of signed.handOut) {
    const receipt = await rpc.call<{ status?: string } | null>("eth_getTransactionReceipt", [keccak256(raw)]);
    if (receipt?.status !== "0x1") throw new Error(`token hand-out failed: ${JSON.stringify(receipt)}`);
  }

  const firstBlock = hexToNumber(await rpc.call("eth_blockNumber")) + 1;
  const miningStarted = performance.now();
  for (const [b, txs] of signed.blocks.entries()) {
    if (performance.now() - started > PREPARE_TIMEOUT_MS) {
      throw new Error(
        `preparation exceeded ${PREPARE_TIMEOUT_MS / 1000} s after ${b} of ${BLOCKS} transfer blocks`,
      );
    }
    await mineBlock(rpc, txs);
  }
  const lastBlock = hexToNumber(await rpc.call("eth_blockNumber"));
  if (lastBlock !== firstBlock + BLOCKS - 1) {
    throw new Error(
      `expected ${BLOCKS} transfer blocks ${firstBlock}..${firstBlock + BLOCKS - 1}, head is ${lastBlock}`,
    );
  }
  const prepareSeconds = (performance.now() - started) / 1000;
  ctx.log(
    `mined ${TRANSFERS} token transfers into blocks ${firstBlock}..${lastBlock} in ` +
      `${((performance.now() - miningStarted) / 1000).toFixed(1)} s (prepared in ${prepareSeconds.toFixed(1)} s)`,
  );
  return {
    token: signed.token,
    firstBlock,
    lastBlock,
    transferHashes: signed.transferHashes,
    recipientHashes: signed.recipientHashes,
    prepareSeconds,
  };
}

/** The prepared chain of this node: built by whichever eth_getLogs scenario runs first on it. */
function logChain(ctx: ScenarioContext): Promise<LogChain> {
  return oncePerNode(ctx, "getLogs:chain", (rpc) => prepareChain(ctx, rpc));
}

interface RpcLogLike {
  address?: string;
  topics?: string[];
  blockNumber?: string;
  transactionHash?: string;
}

interface LogQuery {
  name: string;
  description: string;
  filter(chain: LogChain): Record<string, unknown>;
  /** Hashes of the transactions whose logs the query must return (one log each). */
  expected(chain: LogChain): Set<string>;
  /** Checks one returned log; throws when it does not belong in the answer. */
  checkLog(log: RpcLogLike, chain: LogChain): void;
  /** Logs each transfer block must contribute, when every block must contribute the same number. */
  perBlock?: number;
}

function logsScenario(query: LogQuery): Scenario {
  return {
    name: query.name,
    description: query.description,
    node: "shared",
    modes: () => ["manual"],
    async run(ctx: ScenarioContext): Promise<Measurement> {
      const chain = await logChain(ctx);
      const filter = query.filter(chain);
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getLogs", params: [filter] });

      // One answer checked in full: every expected transfer's log, each once, nothing else.
      const rpc = new RpcClient(ctx.node.url, { maxSockets: 1 });
      let sample: { status: number; text: string };
      try {
        sample = await rpc.post(body);
      } finally {
        rpc.close();
      }
      if (sample.status !== 200)
        throw new Error(`sample eth_getLogs: HTTP ${sample.status}: ${sample.text.slice(0, 200)}`);
      const parsed = JSON.parse(sample.text) as { result?: RpcLogLike[]; error?: unknown };
      if (!Array.isArray(parsed.result)) {
        throw new Error(`sample eth_getLogs: ${JSON.stringify(parsed.error ?? parsed).slice(0, 300)}`);
      }
      const logs = parsed.result;
      const expected = query.expected(chain);
      const seen = new Set<string>();
      const perBlock = new Map<number, number>();
      for (const log of logs) {
        query.checkLog(log, chain);
        const hash = log.transactionHash?.toLowerCase() ?? "";
        if (!expected.has(hash)) throw new Error(`sample eth_getLogs: unexpected log of transaction ${hash}`);
        if (seen.has(hash)) throw new Error(`sample eth_getLogs: log of ${hash} returned twice`);
        seen.add(hash);
        const n = hexToNumber(log.blockNumber);
        if (n < chain.firstBlock || n > chain.lastBlock)
          throw new Error(`sample eth_getLogs: log in block ${n}`);
        perBlock.set(n, (perBlock.get(n) ?? 0) + 1);
      }
      if (seen.size !== expected.size) {
        throw new Error(`sample eth_getLogs: ${seen.size} logs, expected ${expected.size}`);
      }
      if (query.perBlock !== undefined) {
        const uneven = [...perBlock].filter(([, c]) => c !== query.perBlock);
        if (perBlock.size !== BLOCKS || uneven.length > 0) {
          throw new Error(
            `sample eth_getLogs: expected ${query.perBlock} logs in each of ${BLOCKS} blocks, ` +
              `got ${perBlock.size} blocks, e.g. ${JSON.stringify(uneven.slice(0, 3))}`,
          );
        }
      }
      const bytes = Buffer.byteLength(sample.text);
      ctx.log(`sample eth_getLogs -> ${logs.length} logs in ${perBlock.size} blocks, ${formatBytes(bytes)}`);

      // Every answer during the load must hold the first and the last log of the sample.
      const firstHash = logs[0]?.transactionHash ?? "";
      const lastHash = logs[logs.length - 1]?.transactionHash ?? "";
      const loadOptions = {
        url: ctx.node.url,
        body,
        verifyBody: (b: string) => b.includes(firstHash) && b.includes(lastHash) && !b.includes('"error"'),
        connections: LOAD_CONNECTIONS,
        warmupSeconds: 0,
      };
      // autocannon abandons the requests in flight when a run ends; a node may still be computing
      // them, so wait until it answers promptly again before (and after) the measured run.
      if (ctx.settings.warmupSeconds > 0) {
        await runHttpLoad({ ...loadOptions, durationSeconds: ctx.settings.warmupSeconds });
        await settle(ctx.node.url);
      }
      const load = await runHttpLoad({ ...loadOptions, durationSeconds: ctx.settings.durationSeconds });
      const settleSeconds = await settle(ctx.node.url);
      const notes = [
        `${logs.length.toLocaleString("en-US")} logs / ${formatBytes(bytes)} per answer`,
        `${LOAD_CONNECTIONS} connections`,
      ];
      if (load.okRequests === 0) notes.push(`no answer completed within ${ctx.settings.durationSeconds} s`);
      notes.push(...errorNote(load));
      return loadMeasurement(load, notes, {
        filter,
        logs: logs.length,
        blocksWithLogs: perBlock.size,
        responseBytes: bytes,
        connections: LOAD_CONNECTIONS,
        meanMs: load.meanMs,
        errorBreakdown: load.breakdown,
        prepareSeconds: chain.prepareSeconds,
        settleSeconds,
      });
    },
  };
}

/**
 * Waits (at most SETTLE_TIMEOUT_MS) until three eth_blockNumber calls in a row are answered within
 * SETTLE_FAST_MS: the node has finished the work left over from the last load run. Returns the seconds waited.
 */
async function settle(url: string): Promise<number> {
  const started = performance.now();
  const rpc = new RpcClient(url, { maxSockets: 1, timeoutMs: SETTLE_TIMEOUT_MS });
  try {
    let fast = 0;
    while (fast < 3 && performance.now() - started < SETTLE_TIMEOUT_MS) {
      const sent = performance.now();
      await rpc.call("eth_blockNumber");
      fast = performance.now() - sent < SETTLE_FAST_MS ? fast + 1 : 0;
      await sleep(20);
    }
  } finally {
    rpc.close();
  }
  return (performance.now() - started) / 1000;
}

function formatBytes(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}

/** eth_getLogs of one token over 1,000 blocks: 10,000 Transfer logs per answer. */
export const getLogs = logsScenario({
  name: "getLogs",
  description: `eth_getLogs(address = token) over ${BLOCKS} blocks: all ${TRANSFERS} ERC-20 Transfer logs per answer.`,
  filter: (chain) => ({
    fromBlock: toHex(chain.firstBlock),
    toBlock: toHex(chain.lastBlock),
    address: chain.token,
  }),
  expected: (chain) => chain.transferHashes,
  checkLog: (log, chain) => {
    if (log.address?.toLowerCase() !== chain.token.toLowerCase() || log.topics?.[0] !== TRANSFER_TOPIC) {
      throw new Error(`sample eth_getLogs: not a Transfer log of the token: ${JSON.stringify(log)}`);
    }
  },
  perBlock: SENDERS,
});

/** eth_getLogs by Transfer topic and one recipient over the same blocks: 1 % of the logs. */
export const getLogsTopic = logsScenario({
  name: "getLogsTopic",
  description:
    `eth_getLogs(topics = [Transfer, any, recipient 0]) over ${BLOCKS} blocks: ` +
    `${TRANSFERS / RECIPIENTS} of ${TRANSFERS} logs match (index selectivity).`,
  filter: (chain) => ({
    fromBlock: toHex(chain.firstBlock),
    toBlock: toHex(chain.lastBlock),
    topics: [TRANSFER_TOPIC, null, pad(recipient(0)).toLowerCase()],
  }),
  expected: (chain) => chain.recipientHashes,
  checkLog: (log) => {
    if (log.topics?.[0] !== TRANSFER_TOPIC || log.topics[2] !== pad(recipient(0)).toLowerCase()) {
      throw new Error(`sample eth_getLogs: not a Transfer to recipient 0: ${JSON.stringify(log)}`);
    }
  },
});
