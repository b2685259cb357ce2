import { Block } from "@ethereumjs/block";
import { createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { createVM, type VM } from "@ethereumjs/vm";
import { STAKING_ADDRESS, Staking } from "@strata/contracts";
import { encodeFunctionData } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keccak256 } from "../crypto/keccak.js";
import { rpc } from "../e2e/clients.js";
import type { BlockHooks } from "../execution/block/block-executor.js";
import { OverlayStateManager } from "../execution/state/overlay-state.js";
import { startTestNode, type TestNode } from "../testing/test-node.js";
import { PosEngine } from "./engine.js";
import { vanityOf, withExtraData } from "./seal.js";

let t: TestNode;

beforeAll(async () => {
  t = await startTestNode();
  await rpc(t.url, "evm_mine");
  await rpc(t.url, "evm_mine");
});
afterAll(() => t.stop());

const GET_VALIDATORS = hexToBytes(encodeFunctionData({ abi: Staking.abi, functionName: "getValidators" }));

/** Staking's view of every validator (stake, blocks proposed and missed...) in `vm`'s state. */
async function validators(vm: VM): Promise<Uint8Array> {
  const result = await vm.evm.runCall({
    to: createAddressFromString(STAKING_ADDRESS),
    data: GET_VALIDATORS,
    gasLimit: 10_000_000n,
    isStatic: true,
  });
  return result.execResult.returnValue;
}

/** Runs `hooks`' start-of-block steps for `block` on its parent's state; the validators after them. */
async function startOfBlock(hooks: BlockHooks, block: Block): Promise<Uint8Array> {
  const { chain } = t.node;
  const parent = chain.store.blockByHash(block.header.parentHash)!;
  const vm = await createVM({
    common: chain.common.copy(),
    stateManager: new OverlayStateManager(chain.stateAt(parent), keccak256),
  });
  const { header } = block;
  const proposed = { timestamp: header.timestamp, coinbase: header.coinbase.bytes };
  const template = await hooks.prepare(vm, parent, proposed);
  expect(template.coinbase).toEqual(header.coinbase.bytes);
  const before = await validators(vm);
  await hooks.beforeTransactions({
    vm,
    parent,
    number: header.number,
    timestamp: template.timestamp,
    coinbase: template.coinbase,
    mixHash: header.mixHash,
    gasLimit: header.gasLimit,
    baseFeePerGas: header.baseFeePerGas ?? 0n,
  });
  const after = await validators(vm);
  // recordSlot counted the block for its proposer (and any validator it skipped).
  expect(after).not.toEqual(before);
  return after;
}

/** How many Staking storage slots `hooks.prepare` reads replaying `block` on its parent's state. */
async function stakingReadsOfPrepare(hooks: BlockHooks, block: Block): Promise<number> {
  const { chain } = t.node;
  const parent = chain.store.blockByHash(block.header.parentHash)!;
  const state = new OverlayStateManager(chain.stateAt(parent), keccak256);
  const staking = createAddressFromString(STAKING_ADDRESS);
  let reads = 0;
  const getStorage = state.getStorage.bind(state);
  state.getStorage = (address, key) => {
    if (address.equals(staking)) reads++;
    return getStorage(address, key);
  };
  const vm = await createVM({ common: chain.common.copy(), stateManager: state });
  const { header } = block;
  await hooks.prepare(vm, parent, { timestamp: header.timestamp, coinbase: header.coinbase.bytes });
  return reads;
}

describe("PosEngine.storedBlockHooks", () => {
  it("takes the active set after the parent as the node announced it, reading no Staking state", async () => {
    const block = t.node.chain.head;
    const parent = t.node.chain.store.blockByHash(block.header.parentHash)!;
    const announced = t.node.consensus!.cachedActiveSetAfter(parent.header);
    expect(announced?.length).toBeGreaterThan(0);
    const fresh = () => new PosEngine(t.node.config.network, { signers: new Map(), waitForTimeouts: false });
    const unaware = fresh();
    expect(await stakingReadsOfPrepare(unaware.storedBlockHooks(block), block)).toBeGreaterThan(0);
    const told = fresh();
    told.rememberActiveSetAfter(parent.header.stateRoot, announced!);
    expect(await stakingReadsOfPrepare(told.storedBlockHooks(block), block)).toBe(0);
    expect(await startOfBlock(told.storedBlockHooks(block), block)).toEqual(
      await startOfBlock(unaware.storedBlockHooks(block), block),
    );
  });

  it("replays a stored block's start-of-block system calls as its verifying replay does", async () => {
    const engine = t.node.consensus!;
    const block = t.node.chain.head;
    const verified = await startOfBlock(engine.replayHooks(block), block);
    expect(await startOfBlock(engine.storedBlockHooks(block), block)).toEqual(verified);
  });

  it("takes the miner as the proposer without recovering the seal", async () => {
    const engine = t.node.consensus!;
    const sealed = t.node.chain.head;
    const header = withExtraData(sealed.header, vanityOf(sealed.header));
    const unsealed = new Block(header, sealed.transactions, [], sealed.withdrawals, {
      common: sealed.common,
    });
    await expect(startOfBlock(engine.replayHooks(unsealed), unsealed)).rejects.toThrow(/seal/);
    expect(await startOfBlock(engine.storedBlockHooks(unsealed), unsealed)).toEqual(
      await startOfBlock(engine.replayHooks(sealed), sealed),
    );
  });
});
