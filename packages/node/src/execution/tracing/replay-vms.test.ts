import { EVM } from "@ethereumjs/evm";
import { createAddressFromString, createContractAddress, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedChain, openChain } from "../../chain/open-chain.js";
import { testConfig } from "../../config/node-config.js";
import { deriveDevAccounts } from "../../dev-accounts.js";
import { signedCandidate } from "../../testing/executor-candidates.js";
import { BlockExecutor } from "../block/block-executor.js";
import { TracingService } from "./tracing-service.js";

// Deploys a runtime that adds its first calldata word to slot 0.
const CREATION = "0x600c600c600039600c6000f3600035600054016000556000";
const BLOCKS = 7;

describe("VMs of trace replays", () => {
  let opened: OpenedChain;
  const hashes: Uint8Array[] = [];

  beforeAll(async () => {
    opened = await openChain(testConfig().network, null);
    const { chain, common, trieDb, chainView } = opened;
    const executor = new BlockExecutor(common, chain.states, trieDb, chainView);
    const key = deriveDevAccounts(testConfig().network)[0]!;
    const from = createAddressFromString(key.address);
    let nonce = 0n;
    const mine = async (data: Uint8Array, to?: string) => {
      const candidate = signedCandidate(common, key, { nonce: nonce++, data, ...(to ? { to } : {}) });
      const parent = chain.head;
      const built = await executor.build(parent, [candidate], {
        timestamp: parent.header.timestamp + 1n,
        coinbase: new Uint8Array(20),
      });
      expect(built.receipts.map((r) => r.status)).toEqual([1]);
      await chain.commit(built);
      return candidate.tx.hash();
    };
    const contract = createContractAddress(from, nonce).toString();
    await mine(hexToBytes(CREATION));
    for (let i = 1; i <= BLOCKS; i++)
      hashes.push(await mine(setLengthLeft(new Uint8Array([i]), 32), contract));
  });
  afterAll(async () => {
    await opened?.close();
  });

  const tracing = () => {
    const { chain, chainView } = opened;
    const source = {
      common: opened.common,
      store: chain.store,
      states: chain.states,
      blockByHash: (hash: Uint8Array) => chain.blockByHash(hash),
      stateAt: (block: { header: { stateRoot: Uint8Array } }) => chain.states.at(block.header.stateRoot),
    };
    return new TracingService(source, chainView, 50_000_000n, 5_000);
  };
  const traceAll = async (service: TracingService) => {
    const traces: unknown[] = [];
    for (const hash of hashes) {
      traces.push(await service.traceTransaction(hash, { tracer: "callTracer" }));
      traces.push(
        await service.traceTransaction(hash, { tracer: "prestateTracer", tracerConfig: { diffMode: true } }),
      );
    }
    return traces;
  };

  it("serves replay after replay with the VMs of replays no longer kept, answering as fresh ones", async () => {
    const prototype = EVM.prototype as unknown as { getActiveOpcodes: (...args: unknown[]) => unknown };
    const getActiveOpcodes = prototype.getActiveOpcodes;
    let made = 0;
    prototype.getActiveOpcodes = function (this: unknown, ...args: unknown[]) {
      made++;
      return getActiveOpcodes.apply(this, args);
    };
    const reusing = tracing();
    let first: unknown[];
    let again: unknown[];
    try {
      first = await traceAll(reusing);
      again = await traceAll(reusing);
    } finally {
      prototype.getActiveOpcodes = getActiveOpcodes;
    }
    // Four replays are kept (one VM each), and the one a new replay pushes out serves the next.
    expect(made).toBe(5);
    expect(again).toEqual(first);
    // Each trace as a service that never served before answers it.
    const fresh: unknown[] = [];
    for (const hash of hashes) {
      fresh.push(await tracing().traceTransaction(hash, { tracer: "callTracer" }));
      fresh.push(
        await tracing().traceTransaction(hash, {
          tracer: "prestateTracer",
          tracerConfig: { diffMode: true },
        }),
      );
    }
    expect(first).toEqual(fresh);
  });
});
