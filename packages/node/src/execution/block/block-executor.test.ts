import { hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedChain, openChain } from "../../chain/open-chain.js";
import { testConfig } from "../../config/node-config.js";
import { deriveDevAccounts } from "../../dev-accounts.js";
import { receivedCandidates } from "../../producer/pending-execution.js";
import { signTransfer, testAccount } from "../../testing/fast-signer.js";
import { BlockExecutor } from "./block-executor.js";

const GWEI = 1_000_000_000n;
/** A small bound on the carried state, so a few blocks pass it. */
const LIMIT = 120;
const TRANSFERS_PER_BLOCK = 25;

describe("BlockExecutor carried state", () => {
  let opened: OpenedChain;
  beforeAll(async () => {
    opened = await openChain(testConfig().network, null);
  });
  afterAll(async () => {
    await opened?.close();
  });

  it("stays at its bound of cached entries when blocks fill it past the bound", async () => {
    const { chain, common, trieDb, chainView } = opened;
    const executor = new BlockExecutor(common, chain.states, trieDb, chainView, LIMIT);
    const [warm] = executor.boundedStructures();
    expect(warm).toMatchObject({ name: "warm_state", bound: LIMIT });
    const sender = deriveDevAccounts(testConfig().network)[0]!;
    const sizes: number[] = [];
    let nonce = 0n;
    for (let block = 0; block < 12; block++) {
      // Each transfer reaches an account never seen before: one more cached entry per transaction.
      const transactions = Array.from({ length: TRANSFERS_PER_BLOCK }, () => {
        const to = testAccount(Number(nonce)).address;
        const raw = signTransfer(sender.privateKey, {
          nonce: nonce++,
          to,
          maxFeePerGas: 100n * GWEI,
          maxPriorityFeePerGas: GWEI,
        });
        return { raw: hexToBytes(raw as `0x${string}`), sender: hexToBytes(sender.address as `0x${string}`) };
      });
      const parent = chain.head;
      const built = await executor.build(parent, receivedCandidates(transactions, common), {
        timestamp: parent.header.timestamp + 1n,
        coinbase: new Uint8Array(20),
      });
      expect(built.rejected).toEqual([]);
      await chain.commit(built);
      sizes.push(warm!.size());
    }
    // The state was carried (it grew from block to block), was dropped once past the bound, and was
    // never held past it.
    expect(sizes[1]!).toBeGreaterThan(sizes[0]!);
    expect(sizes).toContain(0);
    for (const size of sizes) expect(size).toBeLessThan(LIMIT);
    expect(chain.head.header.number).toBe(12n);
  });
});
