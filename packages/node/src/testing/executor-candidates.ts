import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { STAKING_ADDRESS, Staking } from "@strata/contracts";
import { encodeFunctionData } from "viem";
import type { Chain } from "../chain/chain.js";
import type { PosEngine } from "../consensus/engine.js";
import type { DevAccount } from "../dev-accounts.js";
import type { BlockExecutor, BuiltBlock, Candidate } from "../execution/block/block-executor.js";

const GWEI = 1_000_000_000n;

/** What a test transaction does: a call (with `to`) or a creation, its data, value and gas limit. */
export interface CandidateFields {
  readonly nonce: bigint;
  readonly to?: string;
  readonly data?: Uint8Array;
  readonly value?: bigint;
  /** Default 200,000. */
  readonly gasLimit?: bigint;
}

/**
 * `account`'s EIP-1559 transaction (fee cap 100 gwei, tip 1 gwei), signed, as a block executor takes
 * it: for tests that build blocks with {@link BlockExecutor} directly, without a pool.
 */
export function signedCandidate(common: Common, account: DevAccount, fields: CandidateFields): Candidate {
  const tx = createFeeMarket1559Tx(
    {
      chainId: common.chainId(),
      nonce: fields.nonce,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
      gasLimit: fields.gasLimit ?? 200_000n,
      ...(fields.to ? { to: fields.to as `0x${string}` } : {}),
      ...(fields.data ? { data: fields.data } : {}),
      value: fields.value ?? 0n,
    },
    { common },
  ).sign(account.privateKey);
  return { tx, senderAddress: createAddressFromString(account.address), sender: account.address };
}

/**
 * Builds a block on `chain`'s head with `engine`'s consensus steps and one transaction of `account`
 * (nonce `nonce`) that reads the validators' counters (`Staking.getValidators`), which the block's
 * `recordSlot` has just moved; the block is not committed.
 */
export function buildStakingReadBlock(
  executor: BlockExecutor,
  chain: Chain,
  engine: PosEngine,
  account: DevAccount,
  nonce: bigint,
): Promise<BuiltBlock> {
  const parent = chain.head;
  const candidate = signedCandidate(chain.common, account, {
    nonce,
    to: STAKING_ADDRESS,
    data: hexToBytes(encodeFunctionData({ abi: Staking.abi, functionName: "getValidators" })),
    gasLimit: 300_000n,
  });
  return executor.build(parent, [candidate], {
    timestamp: parent.header.timestamp + 1n,
    coinbase: parent.header.coinbase.bytes,
    hooks: engine.producerHooks(),
  });
}
