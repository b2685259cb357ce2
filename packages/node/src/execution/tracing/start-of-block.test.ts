import { bytesToHex } from "@ethereumjs/util";
import { encodeRecordSlot } from "@strata/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedChain, openChain } from "../../chain/open-chain.js";
import { testConfig } from "../../config/node-config.js";
import { createPosEngine } from "../../consensus/create-engine.js";
import type { PosEngine } from "../../consensus/engine.js";
import { deriveDevAccounts } from "../../dev-accounts.js";
import { buildStakingReadBlock } from "../../testing/executor-candidates.js";
import { BlockExecutor } from "../block/block-executor.js";
import { interpreterPrototype } from "../evm/evm-internals.js";
import { STEPS_KEPT, type StateStep, WarmStates } from "../state/state-carry.js";
import { TracingService } from "./tracing-service.js";

const BLOCKS = 3;
const RECORD_SLOT = encodeRecordSlot("0x0000000000000000000000000000000000000001").slice(0, 10);

describe("replaying a block's start-of-block steps", () => {
  let opened: OpenedChain;
  let engine: PosEngine;
  const steps: StateStep[] = [];
  const hashes: Uint8Array[] = [];

  beforeAll(async () => {
    const config = testConfig();
    opened = await openChain(config.network, null);
    engine = createPosEngine(config, deriveDevAccounts(config.network))!;
    const { chain, common, trieDb, chainView } = opened;
    chain.events.on("stateStep", (step) => steps.push(step));
    const executor = new BlockExecutor(common, chain.states, trieDb, chainView);
    const key = deriveDevAccounts(config.network)[0]!;
    for (let nonce = 0n; nonce < BLOCKS; nonce++) {
      const built = await buildStakingReadBlock(executor, chain, engine, key, nonce);
      expect(built.receipts.map((r) => r.status)).toEqual([1]);
      await chain.commit(built);
      hashes.push(built.block.transactions[0]!.hash());
    }
  });
  afterAll(async () => {
    await opened?.close();
  });

  /** A tracing service over the chain; with `told`, its warm states know the blocks' steps. */
  const tracing = (told: boolean) => {
    const { chain, chainView, common } = opened;
    const warmStates = new WarmStates(chain.states, STEPS_KEPT);
    if (told) for (const step of steps) warmStates.record(step);
    const source = {
      common,
      store: chain.store,
      states: chain.states,
      blockByHash: (hash: Uint8Array) => chain.blockByHash(hash),
      stateAt: (block: { header: { stateRoot: Uint8Array } }) => warmStates.at(block.header.stateRoot),
      warmStates,
    };
    return new TracingService(source, chainView, 50_000_000n, 5_000, (block) =>
      engine.storedBlockHooks(block),
    );
  };

  /** Traces every transaction, counting the runs of `recordSlot` the replays made. */
  const traceAll = async (service: TracingService) => {
    const prototype = (await interpreterPrototype()) as { run: (...args: unknown[]) => Promise<unknown> };
    const run = prototype.run;
    let recordSlots = 0;
    prototype.run = function (this: { _env: { depth: number; callData: Uint8Array } }, ...args: unknown[]) {
      if (this._env.depth === 0 && bytesToHex(this._env.callData.subarray(0, 4)) === RECORD_SLOT)
        recordSlots++;
      return run.apply(this, args);
    };
    const traces: unknown[] = [];
    try {
      for (const hash of hashes) {
        traces.push(await service.traceTransaction(hash, { tracer: "callTracer" }));
        traces.push(await service.traceTransaction(hash, { tracer: "prestateTracer" }));
      }
    } finally {
      prototype.run = run;
    }
    return { traces, recordSlots };
  };

  it("puts back what the steps wrote, as the node that built the block noted it, instead of running them", async () => {
    expect(steps.slice(-BLOCKS).every((step) => step.startWrites !== undefined)).toBe(true);
    const told = await traceAll(tracing(true));
    const rerun = await traceAll(tracing(false));
    expect(rerun.recordSlots).toBe(BLOCKS);
    expect(told.recordSlots).toBe(0);
    expect(told.traces).toEqual(rerun.traces);
    // The traced calls saw the proposer's counters as recordSlot left them, and they differ block by block.
    const outputs = told.traces
      .filter((_, i) => i % 2 === 0)
      .map((trace) => (trace as { output: string }).output);
    expect(new Set(outputs).size).toBe(BLOCKS);
  });
});
