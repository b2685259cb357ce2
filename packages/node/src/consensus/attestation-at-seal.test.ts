import { bytesToHex } from "@ethereumjs/util";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedChain, openChain } from "../chain/open-chain.js";
import { testConfig } from "../config/node-config.js";
import { SigningThread } from "../crypto/signing-thread.js";
import { deriveDevAccounts } from "../dev-accounts.js";
import { BlockExecutor, type BlockHooks } from "../execution/block/block-executor.js";
import { attestationOf, checkHeaderAttestation, recoverVoter } from "./attestation.js";
import { createPosEngine } from "./create-engine.js";
import type { PosEngine } from "./engine.js";
import { FinalityGadget } from "./finality.js";
import { DEFAULT_VANITY, recoverSealer } from "./seal.js";

describe("a proposer's attestation", () => {
  const config = testConfig();
  const chainId = BigInt(config.network.chainId);
  const thread = SigningThread.start()!;
  let opened: OpenedChain;
  let engine: PosEngine;

  beforeAll(async () => {
    opened = await openChain(config.network, null);
    engine = createPosEngine(config, deriveDevAccounts(config.network))!;
    engine.attachFinality(
      new FinalityGadget({
        chainId,
        signers: engine.signerKeys,
        isOffline: () => false,
        votersOf: async (header) => engine.cachedActiveSetAfter(header)!,
        headerByHash: (hash) => opened.chain.store.blockByHash(hash)?.header,
        headNumber: () => opened.chain.head.header.number,
        logger: pino({ level: "silent" }),
        signingThread: thread,
      }),
    );
  });
  afterAll(async () => {
    thread.close();
    await opened?.close();
  });

  it("goes into the header at sealing: the votes for the parent are signed on the signing thread while the block runs", async () => {
    const { chain, common, trieDb, chainView } = opened;
    const executor = new BlockExecutor(common, chain.states, trieDb, chainView);
    for (let i = 0; i < 3; i++) {
      const parent = chain.head;
      const hooks = engine.producerHooks();
      const prepared: Uint8Array[] = [];
      const watched: BlockHooks = {
        ...hooks,
        prepare: async (vm, before, template) => {
          const decided = await hooks.prepare(vm, before, template);
          prepared.push(decided.extraData!);
          return decided;
        },
      };
      const batches = thread.batches;
      const built = await executor.build(parent, [], {
        timestamp: parent.header.timestamp + 1n,
        coinbase: parent.header.coinbase.bytes,
        hooks: watched,
      });
      await chain.commit(built);
      const { header } = built.block;
      // The block ran under the bare vanity; the seal covers the vanity and the attestation.
      expect(prepared).toEqual([DEFAULT_VANITY]);
      expect(thread.batches).toBe(batches + 1);
      const active = engine.cachedActiveSetAfter(parent.header)!;
      const attestation = attestationOf(header)!;
      expect(bytesToHex(attestation.hash)).toBe(bytesToHex(parent.hash()));
      expect(attestation.signatures).toHaveLength(active.length);
      expect(checkHeaderAttestation(header, parent.header, active, chainId)).toBeUndefined();
      const signers = attestation.signatures.map((signature) =>
        recoverVoter(chainId, { number: parent.header.number, hash: parent.hash(), signature }),
      );
      expect(new Set(signers)).toEqual(new Set(active.map((v) => v.address)));
      expect(recoverSealer(header)).toBe(bytesToHex(header.coinbase.bytes));
    }
  });
});
