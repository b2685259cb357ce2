import { type Block, createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import {
  createAccessList2930Tx,
  createEOACode7702Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from "@ethereumjs/tx";
import {
  Account,
  type Address,
  bytesToHex,
  createAddressFromPrivateKey,
  createAddressFromString,
} from "@ethereumjs/util";
import { createVM, runTx, type VM } from "@ethereumjs/vm";
import { beforeAll, describe, expect, it } from "vitest";
import { loadNetwork } from "../../config/network.js";
import { createChainCommon } from "../evm/common.js";
import { runValueTransfer } from "./value-transfer.js";

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const COINBASE_KEY = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
const SENDER = createAddressFromPrivateKey(KEY);
const FUNDED_COINBASE = createAddressFromPrivateKey(COINBASE_KEY);
const FRESH = createAddressFromString("0x00000000000000000000000000000000000f4e54");
const EMPTY = createAddressFromString("0x00000000000000000000000000000000000e3e37");
const CONTRACT = createAddressFromString("0x00000000000000000000000000000000000c0de0");
const PRECOMPILE = createAddressFromString("0x0000000000000000000000000000000000000001");
const BASE_FEE = 7n;
const ETHER = 10n ** 18n;

describe("runValueTransfer", () => {
  let common: Common;

  beforeAll(async () => {
    common = await createChainCommon(loadNetwork("dev"));
  });

  /** A VM over a small state: a funded sender, an existing empty account, a contract, maybe a funded coinbase. */
  async function freshVm(): Promise<VM> {
    const stateManager = new MerkleStateManager({ caches: new Caches(), common });
    await stateManager.putAccount(SENDER, new Account(3n, 10n * ETHER));
    await stateManager.putAccount(FUNDED_COINBASE, new Account(0n, ETHER));
    await stateManager.putAccount(EMPTY, new Account());
    await stateManager.putAccount(CONTRACT, new Account(1n));
    await stateManager.putCode(CONTRACT, Uint8Array.of(0x00));
    await stateManager.getStateRoot();
    return createVM({ common, stateManager });
  }

  function blockWith(coinbase: Address): Block {
    return createBlock(
      { header: { number: 1n, timestamp: 1n, gasLimit: 30_000_000n, baseFeePerGas: BASE_FEE, coinbase } },
      { common, skipConsensusFormatValidation: true },
    );
  }

  function transfer(
    fields: { to: Address; value?: bigint; nonce?: bigint; tip?: bigint },
    key = KEY,
  ): TypedTransaction {
    return createFeeMarket1559Tx(
      {
        nonce: fields.nonce ?? 3n,
        to: fields.to,
        value: fields.value ?? 0n,
        gasLimit: 30_000n,
        maxFeePerGas: 100n,
        maxPriorityFeePerGas: fields.tip ?? 2n,
      },
      { common },
    ).sign(key);
  }

  /** Runs `tx` through runValueTransfer on one VM and runTx on another; both must agree on everything. */
  async function expectSameAsRunTx(tx: TypedTransaction, coinbase: Address): Promise<void> {
    const fast = await freshVm();
    const stock = await freshVm();
    const block = blockWith(coinbase);
    const ours = await runValueTransfer(fast, tx, block, 1_000n);
    const theirs = await runTx(stock, { tx, block, blockGasUsed: 1_000n, skipHardForkValidation: true });
    expect(ours).toBeDefined();
    expect(ours!.totalGasSpent).toBe(theirs.totalGasSpent);
    expect(ours!.blockGasSpent).toBe(theirs.blockGasSpent);
    expect(ours!.amountSpent).toBe(theirs.amountSpent);
    expect(ours!.minerValue).toBe(theirs.minerValue);
    expect(ours!.receipt).toEqual(theirs.receipt);
    expect(bytesToHex(ours!.bloom.bitvector)).toBe(bytesToHex(theirs.bloom.bitvector));
    expect(bytesToHex(await fast.stateManager.getStateRoot())).toBe(
      bytesToHex(await stock.stateManager.getStateRoot()),
    );
  }

  it("leaves the same state and receipt as runTx for every kind of plain transfer", async () => {
    const coinbase = FUNDED_COINBASE;
    await expectSameAsRunTx(transfer({ to: FRESH, value: 5n }), coinbase);
    await expectSameAsRunTx(transfer({ to: FRESH }), coinbase);
    await expectSameAsRunTx(transfer({ to: EMPTY }), coinbase);
    await expectSameAsRunTx(transfer({ to: EMPTY, value: 1n }), coinbase);
    await expectSameAsRunTx(transfer({ to: SENDER, value: ETHER }), coinbase);
    await expectSameAsRunTx(transfer({ to: FRESH, value: 9n }), SENDER);
    await expectSameAsRunTx(transfer({ to: FRESH, value: 9n, tip: 0n }), FRESH);
    await expectSameAsRunTx(transfer({ to: FRESH, tip: 0n }), EMPTY);
    await expectSameAsRunTx(
      transfer({ to: FRESH, value: 1n, tip: 99n }),
      createAddressFromString(`0x${"ab".repeat(20)}`),
    );
    const legacy = createLegacyTx(
      { nonce: 3n, to: FRESH, value: 4n, gasLimit: 21_000n, gasPrice: 50n },
      { common },
    ).sign(KEY);
    await expectSameAsRunTx(legacy, coinbase);
    const typed1 = createAccessList2930Tx(
      { nonce: 3n, to: EMPTY, value: 4n, gasLimit: 25_000n, gasPrice: 8n },
      { common },
    ).sign(KEY);
    await expectSameAsRunTx(typed1, coinbase);
  });

  it("declines, changing nothing, whatever is not a plain transfer or would be refused", async () => {
    const declined: TypedTransaction[] = [
      transfer({ to: CONTRACT, value: 1n }),
      transfer({ to: PRECOMPILE, value: 1n }),
      transfer({ to: FRESH, nonce: 4n }),
      transfer({ to: FRESH, nonce: 2n }),
      transfer({ to: FRESH, value: 10n * ETHER }),
      createFeeMarket1559Tx(
        {
          nonce: 3n,
          to: FRESH,
          gasLimit: 30_000n,
          maxFeePerGas: 100n,
          maxPriorityFeePerGas: 1n,
          data: "0x01",
        },
        { common },
      ).sign(KEY),
      createFeeMarket1559Tx(
        { nonce: 3n, to: FRESH, gasLimit: 30_000n, maxFeePerGas: BASE_FEE - 1n, maxPriorityFeePerGas: 1n },
        { common },
      ).sign(KEY),
      createFeeMarket1559Tx(
        { nonce: 3n, to: FRESH, gasLimit: 20_000n, maxFeePerGas: 100n, maxPriorityFeePerGas: 1n },
        { common },
      ).sign(KEY),
      createAccessList2930Tx(
        {
          nonce: 3n,
          to: FRESH,
          gasLimit: 30_000n,
          gasPrice: 8n,
          accessList: [{ address: bytesToHex(FRESH.bytes), storageKeys: [] }],
        },
        { common },
      ).sign(KEY),
      createEOACode7702Tx(
        {
          nonce: 3n,
          to: FRESH,
          gasLimit: 60_000n,
          maxFeePerGas: 100n,
          maxPriorityFeePerGas: 1n,
          authorizationList: [
            {
              chainId: "0x539",
              address: bytesToHex(FRESH.bytes),
              nonce: "0x0",
              yParity: "0x0",
              r: "0x01",
              s: "0x01",
            },
          ],
        },
        { common },
      ).sign(KEY),
      // The sender of this one has no account at all.
      transfer(
        { to: FRESH, nonce: 0n },
        COINBASE_KEY.map((b) => b ^ 0xff),
      ),
    ];
    for (const tx of declined) {
      const vm = await freshVm();
      const before = bytesToHex(await vm.stateManager.getStateRoot());
      expect(await runValueTransfer(vm, tx, blockWith(FUNDED_COINBASE), 0n)).toBeUndefined();
      expect(bytesToHex(await vm.stateManager.getStateRoot())).toBe(before);
    }
  });

  it("declines while anything listens to the VM's or the EVM's events (tracers)", async () => {
    const vm = await freshVm();
    vm.events.on("afterTx", () => {});
    expect(
      await runValueTransfer(vm, transfer({ to: FRESH, value: 1n }), blockWith(FUNDED_COINBASE), 0n),
    ).toBeUndefined();
    const other = await freshVm();
    other.evm.events?.on("step", () => {});
    expect(
      await runValueTransfer(other, transfer({ to: FRESH, value: 1n }), blockWith(FUNDED_COINBASE), 0n),
    ).toBeUndefined();
  });
});
