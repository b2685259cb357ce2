/**
 * A hostile peer as a process of its own, for the multi-process network tests:
 *
 *   node --import tsx packages/node/src/testing/hostile-peer.ts <target multiaddr> <target JSON-RPC URL>
 *
 * It passes the status handshake (it claims the target's own chain), then floods one valid
 * transaction, sends garbage and an oversized frame, blocks whose seal is not their miner's and a
 * block with an unknown parent far in the future. It prints one JSON line of what it saw (whether the
 * target dropped it and refused it when it dialled again) and exits.
 */

import { createBlockFromRLP } from "@ethereumjs/block";
import { bigIntToUnpaddedBytes, bytesToHex, hexToBytes } from "@ethereumjs/util";
import { multiaddr } from "@multiformats/multiaddr";
import { parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { loadNetwork } from "../config/network.js";
import { keccak256 } from "../crypto/keccak.js";
import { createChainCommon } from "../execution/evm/common.js";
import { writeFrames } from "../network/streams.js";
import { encodeTransactionBatch, PROTOCOLS, topicsFor } from "../network/wire.js";
import { withResealedField } from "./forged-blocks.js";
import { createHostileHost } from "./hostile-host.js";

const DEV_MNEMONIC = "test test test test test test test test test test test junk";

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

async function main(target: string, url: string): Promise<void> {
  const common = await createChainCommon(loadNetwork("dev"));
  const genesis = await rpc<{ hash: string }>(url, "eth_getBlockByNumber", ["0x0", false]);
  const latest = await rpc<{ number: string; hash: string }>(url, "eth_getBlockByNumber", ["latest", false]);
  const head = createBlockFromRLP(
    hexToBytes(await rpc<`0x${string}`>(url, "debug_getRawBlock", [latest.number])),
    {
      common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    },
  );
  const ref = { number: BigInt(latest.number), hash: latest.hash };
  const hostile = await createHostileHost(() => ({
    chainId: Number(common.chainId()),
    genesis: genesis.hash,
    head: ref,
    finalized: ref,
  }));
  const topics = topicsFor(hexToBytes(genesis.hash as `0x${string}`));
  for (const topic of [topics.blocks, topics.transactions]) hostile.services.pubsub.subscribe(topic);
  const connected = () =>
    hostile.getConnections().some((c) => c.remoteAddr.toString() === target.split("/p2p/")[0]);
  await hostile.dial(multiaddr(target));
  await until(() => hostile.services.pubsub.getSubscribers(topics.blocks).length > 0, 15_000);

  // A flood of one valid transaction.
  const sender = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 9 });
  const raw = await sender.signTransaction({
    chainId: Number(common.chainId()),
    type: "eip1559",
    to: mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 6 }).address,
    value: parseEther("1"),
    nonce: Number(await rpc<string>(url, "eth_getTransactionCount", [sender.address, "latest"])),
    gas: 21_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  const batch = encodeTransactionBatch([hexToBytes(raw)]);
  for (let i = 0; i < 50; i++)
    await hostile.services.pubsub.publish(topics.transactions, batch).catch(() => {});
  // Garbage on the status protocol and an oversized frame on blocks-by-range.
  const peer = hostile.getConnections()[0]?.remotePeer;
  if (peer !== undefined) {
    const garbage = await hostile.dialProtocol(peer, PROTOCOLS.status).catch(() => undefined);
    if (garbage) await writeFrames(garbage, [new TextEncoder().encode("{not json")]).catch(() => {});
    const oversized = await hostile.dialProtocol(peer, PROTOCOLS.blocksByRange).catch(() => undefined);
    if (oversized) await writeFrames(oversized, [new Uint8Array(64 * 1024)]).catch(() => {});
  }
  // Blocks whose seal is not their miner's, and one with an unknown parent far in the future.
  for (let i = 0; i < 4; i++) {
    const forged = withResealedField(head, 3, new Uint8Array(32).fill(i + 1), new Uint8Array(32).fill(7));
    await hostile.services.pubsub.publish(topics.blocks, forged.serialize()).catch(() => {});
  }
  // Sealed by its own miner, so only its parent (unknown) and its height and time (far ahead) are wrong.
  const unknownParent = withResealedField(head, 0, keccak256(new TextEncoder().encode("no such parent")));
  const farAhead = withResealedField(unknownParent, 8, bigIntToUnpaddedBytes(head.header.number + 1_000n));
  const orphan = withResealedField(farAhead, 11, bigIntToUnpaddedBytes(head.header.timestamp + 3_600n));
  await hostile.services.pubsub.publish(topics.blocks, orphan.serialize()).catch(() => {});

  const dropped = await until(() => !connected(), 30_000);
  // Banned: a new dial is refused or closed at once.
  await hostile.dial(multiaddr(target)).catch(() => {});
  await new Promise((r) => setTimeout(r, 1_000));
  const refused = !connected();
  process.stdout.write(
    `${JSON.stringify({ dropped, refused, tx: bytesToHex(keccak256(hexToBytes(raw))) })}\n`,
  );
  await hostile.stop();
}

const [target, url] = process.argv.slice(2);
if (target === undefined || url === undefined) {
  process.stderr.write("usage: hostile-peer.ts <target multiaddr> <target JSON-RPC URL>\n");
  process.exit(2);
}
await main(target, url);
process.exit(0);
