import { getAddress, type Hex, keccak256, parseEther, parseGwei, toHex } from "viem";
import { type LocalAccount, privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../accounts.js";
import { percentile } from "../load.js";
import { processCpuSeconds } from "../process-cpu.js";
import { hexToBigInt, hexToNumber, RpcClient, sleep } from "../rpc.js";
import type { TargetName } from "../targets.js";
import type { Measurement, Scenario, ScenarioContext } from "./types.js";

const TX_COUNT = 5_000;
const SENDERS = 50;
const PER_SENDER = TX_COUNT / SENDERS;
/** eth_sendRawTransaction requests in flight at once. */
const IN_FLIGHT = 64;
/** How often inclusion progress is sampled (bounds the timing resolution). */
const POLL_INTERVAL_MS = 100;
/** Give up early when nothing new is mined this long after the last send. */
const STALL_SECONDS = 20;

const GAS = 21_000n;
const PRIORITY_FEE = parseGwei("1");
const DEFAULT_MAX_FEE = parseGwei("100");
const TRANSFER_VALUE = 1n;
const SENDER_FUNDING = parseEther("1");

interface SignedTx {
  sender: number;
  nonce: number;
  raw: Hex;
  hash: Hex;
}

function senderAccounts(): LocalAccount[] {
  return Array.from({ length: SENDERS }, (_, i) =>
    privateKeyToAccount(keccak256(toHex(`strata-bench-sender-${i}`))),
  );
}

function recipient(i: number): Hex {
  return getAddress(keccak256(toHex(`strata-bench-recipient-${i}`)).slice(0, 42));
}

/** Signs every transfer offline; the result is reused across targets when chain id, fees and nonces match. */
async function signTransfers(
  ctx: ScenarioContext,
  senders: readonly LocalAccount[],
  chainId: number,
  maxFeePerGas: bigint,
  startNonces: readonly number[],
): Promise<SignedTx[][]> {
  const key = `ingest:${chainId}:${maxFeePerGas}:${startNonces.join(",")}`;
  const cached = ctx.cache.get(key) as SignedTx[][] | undefined;
  if (cached) {
    ctx.log(`reusing ${TX_COUNT} signed transfers`);
    return cached;
  }
  const started = performance.now();
  const signed: SignedTx[][] = [];
  for (const [s, account] of senders.entries()) {
    const txs: SignedTx[] = [];
    for (let k = 0; k < PER_SENDER; k++) {
      const nonce = startNonces[s]! + k;
      const raw = await account.signTransaction!({
        type: "eip1559",
        chainId,
        nonce,
        to: recipient((s + k) % SENDERS),
        value: TRANSFER_VALUE,
        gas: GAS,
        maxFeePerGas,
        maxPriorityFeePerGas: PRIORITY_FEE,
      });
      txs.push({ sender: s, nonce, raw, hash: keccak256(raw) });
    }
    signed.push(txs);
  }
  ctx.cache.set(key, signed);
  ctx.log(`signed ${TX_COUNT} transfers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return signed;
}

async function supportsBatch(rpc: RpcClient): Promise<boolean> {
  try {
    const out = await rpc.batch([
      { method: "eth_chainId", params: [] },
      { method: "eth_blockNumber", params: [] },
    ]);
    return out.every((o) => o.error === undefined && typeof o.result === "string");
  } catch {
    return false;
  }
}

/** Mined ("latest") nonces of the given addresses. */
export async function latestNonces(
  rpc: RpcClient,
  addresses: readonly Hex[],
  batch: boolean,
): Promise<number[]> {
  if (batch) {
    const out = await rpc.batch(
      addresses.map((a) => ({ method: "eth_getTransactionCount", params: [a, "latest"] })),
    );
    return out.map((o, i) => {
      if (o.error) throw new Error(`eth_getTransactionCount(${addresses[i]}): ${o.error.message}`);
      return hexToNumber(o.result);
    });
  }
  return Promise.all(
    addresses.map(async (a) => hexToNumber(await rpc.call("eth_getTransactionCount", [a, "latest"]))),
  );
}

/** Funds the senders from the 10 dev accounts and waits until every funding transfer is mined. */
export async function fundSenders(
  ctx: ScenarioContext,
  rpc: RpcClient,
  senders: readonly LocalAccount[],
  chainId: number,
  maxFeePerGas: bigint,
): Promise<void> {
  const funders = devAccounts();
  const funderNonces = await latestNonces(
    rpc,
    funders.map((f) => f.address),
    false,
  );
  const perFunder = funders.map(() => [] as Hex[]);
  for (const [i, sender] of senders.entries()) {
    const f = i % funders.length;
    const raw = await funders[f]!.signTransaction({
      type: "eip1559",
      chainId,
      nonce: funderNonces[f]! + perFunder[f]!.length,
      to: sender.address,
      value: SENDER_FUNDING,
      gas: GAS,
      maxFeePerGas,
      maxPriorityFeePerGas: PRIORITY_FEE,
    });
    perFunder[f]!.push(raw);
  }
  await Promise.all(
    perFunder.map(async (raws) => {
      for (const raw of raws) await rpc.call("eth_sendRawTransaction", [raw]);
    }),
  );
  const expected = funderNonces.map((n, f) => n + perFunder[f]!.length);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const now = await latestNonces(
      rpc,
      funders.map((f) => f.address),
      false,
    );
    if (now.every((n, f) => n >= expected[f]!)) break;
    if (Date.now() > deadline) throw new Error("funding transfers not mined within 60 s");
    await sleep(100);
  }
  for (const sender of senders) {
    const balance = hexToBigInt(await rpc.call("eth_getBalance", [sender.address, "latest"]));
    if (balance < SENDER_FUNDING) throw new Error(`sender ${sender.address} funded with ${balance} only`);
  }
  ctx.log(`funded ${senders.length} senders with ${SENDER_FUNDING / 10n ** 18n} ETH each`);
}

async function runIngest(ctx: ScenarioContext): Promise<Measurement> {
  const { url } = ctx.node;
  const rpc = new RpcClient(url, { maxSockets: 4 });
  const sendRpc = new RpcClient(url, { maxSockets: IN_FLIGHT });
  const pollRpc = new RpcClient(url, { maxSockets: 2, timeoutMs: 10_000 });
  try {
    const chainId = hexToNumber(await rpc.call("eth_chainId"));
    const head = await rpc.call<{ baseFeePerGas?: string; gasLimit?: string } | null>(
      "eth_getBlockByNumber",
      ["latest", false],
    );
    const baseFee = head?.baseFeePerGas ? hexToBigInt(head.baseFeePerGas) : 0n;
    const blockGasLimit = head?.gasLimit ? hexToNumber(head.gasLimit) : undefined;
    const transfersPerBlock =
      blockGasLimit === undefined ? undefined : Math.floor(blockGasLimit / Number(GAS));
    const maxFeePerGas = baseFee * 4n > DEFAULT_MAX_FEE ? baseFee * 4n : DEFAULT_MAX_FEE;

    const senders = senderAccounts();
    const startNonces = await latestNonces(
      rpc,
      senders.map((s) => s.address),
      false,
    );
    const signed = await signTransfers(ctx, senders, chainId, maxFeePerGas, startNonces);
    await fundSenders(ctx, rpc, senders, chainId, maxFeePerGas);
    const batch = await supportsBatch(pollRpc);
    if (!batch) ctx.log("JSON-RPC batches unsupported; polling with single requests");

    // Round-robin by nonce so each sender's transactions arrive (almost) in order.
    const queue: SignedTx[] = [];
    for (let k = 0; k < PER_SENDER; k++) for (let s = 0; s < SENDERS; s++) queue.push(signed[s]![k]!);

    const startBlock = hexToNumber(await rpc.call("eth_blockNumber"));
    const sendLatencies = new Float64Array(TX_COUNT);
    let accepted = 0;
    let sendErrors = 0;
    const errorMessages = new Map<string, number>();
    let next = 0;
    let sendsDoneAt: number | undefined;

    const cpuAtStart = processCpuSeconds(ctx.node.pid);
    const t0 = performance.now();
    const worker = async () => {
      for (let i = next++; i < queue.length; i = next++) {
        const started = performance.now();
        try {
          await sendRpc.call("eth_sendRawTransaction", [queue[i]!.raw]);
          sendLatencies[accepted++] = performance.now() - started;
        } catch (err) {
          // A send retried after a connection reset may already be in the pool.
          if (/already known|known transaction|already imported/i.test((err as Error).message)) {
            sendLatencies[accepted++] = performance.now() - started;
            continue;
          }
          sendErrors++;
          const message = (err as Error).message.slice(0, 160);
          errorMessages.set(message, (errorMessages.get(message) ?? 0) + 1);
        }
      }
    };
    const sending = Promise.all(Array.from({ length: IN_FLIGHT }, worker)).then(() => {
      sendsDoneAt = performance.now();
    });

    const mined = new Array<number>(SENDERS).fill(0);
    let total = 0;
    let completedAt: number | undefined;
    let lastProgressAt = t0;
    let pollErrors = 0;
    let outcome: "complete" | "timeout" | "stalled" = "timeout";
    const deadline = t0 + ctx.settings.ingestTimeoutSeconds * 1000;
    for (;;) {
      await sleep(POLL_INTERVAL_MS);
      const pending = mined.flatMap((m, s) => (m < PER_SENDER ? [s] : []));
      try {
        const nonces = await latestNonces(
          pollRpc,
          pending.map((s) => senders[s]!.address),
          batch,
        );
        for (const [j, s] of pending.entries()) {
          mined[s] = Math.min(PER_SENDER, Math.max(0, nonces[j]! - startNonces[s]!));
        }
      } catch {
        pollErrors++;
      }
      const now = performance.now();
      const newTotal = mined.reduce((a, b) => a + b, 0);
      if (newTotal !== total) lastProgressAt = now;
      total = newTotal;
      if (total === TX_COUNT) {
        completedAt = now;
        outcome = "complete";
        break;
      }
      if (now > deadline) break;
      if (sendsDoneAt !== undefined && now - Math.max(lastProgressAt, sendsDoneAt) > STALL_SECONDS * 1000) {
        outcome = "stalled";
        break;
      }
    }
    const elapsedMs = (completedAt ?? performance.now()) - t0;
    const cpuAtEnd = processCpuSeconds(ctx.node.pid);
    const cpuMsPerTx =
      cpuAtStart === undefined || cpuAtEnd === undefined || total === 0
        ? undefined
        : ((cpuAtEnd - cpuAtStart) * 1000) / total;
    await sending;
    const sendSeconds = ((sendsDoneAt ?? performance.now()) - t0) / 1000;
    const endBlock = hexToNumber(await rpc.call("eth_blockNumber"));

    // Every sender's last mined transfer must have a successful receipt.
    let failedReceipts = 0;
    for (const [s, m] of mined.entries()) {
      if (m === 0) continue;
      const receipt = await rpc.call<{ status?: string } | null>("eth_getTransactionReceipt", [
        signed[s]![m - 1]!.hash,
      ]);
      if (receipt?.status !== "0x1") failedReceipts++;
    }

    const latencies = sendLatencies.subarray(0, accepted).sort();
    const elapsedSeconds = elapsedMs / 1000;
    const notes = [
      `${total}/${TX_COUNT} mined in ${elapsedSeconds.toFixed(2)} s, ${endBlock - startBlock} blocks`,
    ];
    if (transfersPerBlock !== undefined && ctx.node.mode === "interval") {
      notes.push(`block gas limit ${blockGasLimit! / 1e6}M: at most ${transfersPerBlock} transfers/block`);
    }
    if (cpuMsPerTx !== undefined) notes.push(`node CPU ${cpuMsPerTx.toFixed(2)} ms/tx`);
    if (outcome !== "complete") notes.push(outcome === "timeout" ? "TIMED OUT" : "STALLED");
    if (sendErrors > 0) notes.push(`${sendErrors} sends rejected`);
    if (failedReceipts > 0) notes.push(`${failedReceipts} failed receipts`);
    if (outcome !== "complete" || sendErrors > 0) {
      for (const [message, count] of errorMessages) ctx.log(`send error x${count}: ${message}`);
    }
    return {
      unit: "tx/s",
      throughput: total / elapsedSeconds,
      p50Ms: accepted > 0 ? percentile(latencies, 50) : null,
      p99Ms: accepted > 0 ? percentile(latencies, 99) : null,
      errors: sendErrors + failedReceipts,
      notes,
      details: {
        transactions: TX_COUNT,
        senders: SENDERS,
        inFlight: IN_FLIGHT,
        outcome,
        mined: total,
        elapsedSeconds,
        accepted,
        sendErrors,
        sendErrorMessages: Object.fromEntries(errorMessages),
        failedReceipts,
        nodeCpuMsPerTx: cpuMsPerTx,
        submitSeconds: sendSeconds,
        submitPerSecond: accepted / sendSeconds,
        blocks: endBlock - startBlock,
        startBlock,
        endBlock,
        pollIntervalMs: POLL_INTERVAL_MS,
        pollMode: batch ? "batch" : "single",
        pollErrors,
        maxFeePerGas: maxFeePerGas.toString(),
        baseFeeAtStart: baseFee.toString(),
        blockGasLimit,
        transfersPerBlock,
      },
    };
  } finally {
    rpc.close();
    sendRpc.close();
    pollRpc.close();
  }
}

export const ingest: Scenario = {
  name: "ingest",
  description:
    `${TX_COUNT} pre-signed EIP-1559 transfers from ${SENDERS} senders, ${IN_FLIGHT} in flight; ` +
    "timed from the first send until all are mined.",
  node: "fresh",
  // anvil's automine stalls under this load, so anvil is measured with interval mining only.
  modes: (target: TargetName) => (target === "anvil" ? ["interval"] : ["instant", "interval"]),
  remark: (target, mode) =>
    target === "anvil" && mode === "interval" ? "anvil automine stalls under this load" : undefined,
  run: runIngest,
};
