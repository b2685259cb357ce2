import { createBlock } from "@ethereumjs/block";
import { createCommonFromGethGenesis } from "@ethereumjs/common";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { createTxFromRLP } from "@ethereumjs/tx";
import { Account, createAddressFromString, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { runWithTracer } from "./evm-hooks.js";
import { createTracer } from "./trace-options.js";

/**
 * One of geth's tracer test cases (eth/tracers/internal/tracetest/testdata): a genesis with its
 * accounts, the block context, a signed transaction, the tracer config and geth's result.
 */
export interface GethTracerFixture {
  readonly genesis: {
    readonly config: Record<string, unknown>;
    readonly alloc: Record<
      string,
      { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }
    >;
  } & Record<string, unknown>;
  readonly context: {
    readonly number: string;
    readonly difficulty: string;
    readonly timestamp: string;
    readonly gasLimit: string;
    readonly miner: string;
    readonly baseFeePerGas?: string;
  };
  readonly input: string;
  readonly tracerConfig?: Record<string, unknown>;
  readonly result: unknown;
}

/** Runs a geth tracer fixture's transaction through this node's EVM with the tracer `name`; returns its result. */
export async function runGethFixture(fixture: GethTracerFixture, tracer: string): Promise<unknown> {
  const { genesis, context } = fixture;
  // Go decodes JSON field names case-insensitively; some fixtures spell forks "IstanbulBlock".
  // The consensus engine plays no part in executing a transaction.
  const config = Object.fromEntries(
    Object.entries(genesis.config)
      .filter(([key]) => key !== "clique")
      .map(([key, value]) => [key.charAt(0).toLowerCase() + key.slice(1), value]),
  );
  const common = createCommonFromGethGenesis(
    {
      ...genesis,
      config,
      extraData: "0x",
      gasLimit: "0x0",
      difficulty: "0x0",
      nonce: "0x0",
      timestamp: "0x0",
    } as never,
    { chain: "fixture" },
  );
  common.setHardforkBy({ blockNumber: BigInt(context.number), timestamp: BigInt(context.timestamp) });
  const state = new MerkleStateManager({ common });
  for (const [address, account] of Object.entries(genesis.alloc)) {
    const at = createAddressFromString(address);
    await state.putAccount(at, new Account(BigInt(account.nonce ?? 0), BigInt(account.balance ?? 0)));
    if (account.code && account.code !== "0x")
      await state.putCode(at, hexToBytes(account.code as `0x${string}`));
    for (const [slot, value] of Object.entries(account.storage ?? {})) {
      await state.putStorage(
        at,
        setLengthLeft(hexToBytes(slot as `0x${string}`), 32),
        setLengthLeft(hexToBytes(value as `0x${string}`), 32),
      );
    }
  }
  const vm = await createVM({ common, stateManager: state });
  const block = createBlock(
    {
      header: {
        number: BigInt(context.number),
        difficulty: BigInt(context.difficulty),
        timestamp: BigInt(context.timestamp),
        gasLimit: BigInt(context.gasLimit),
        coinbase: context.miner as `0x${string}`,
        ...(context.baseFeePerGas ? { baseFeePerGas: BigInt(context.baseFeePerGas) } : {}),
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
  const input = fixture.input.startsWith("0x") ? fixture.input : `0x${fixture.input}`;
  const tx = createTxFromRLP(hexToBytes(input as `0x${string}`), { common });
  const traced = createTracer({ tracer, tracerConfig: fixture.tracerConfig ?? {} }, common);
  const run = {
    tx,
    sender: tx.getSenderAddress(),
    coinbase: block.header.coinbase,
    logIndexBase: 0,
    deadline: Infinity,
  };
  await runWithTracer(vm, traced, run, () =>
    runTx(vm, { tx, block, skipHardForkValidation: true, skipBlockGasLimitValidation: true }),
  );
  return traced.result();
}
