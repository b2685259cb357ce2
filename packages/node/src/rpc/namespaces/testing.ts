import type { Block } from "@ethereumjs/block";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { Address, Bytes, Hash32, Quantity, toData, toQuantity, Uint64 } from "@strata/protocol";
import { z } from "zod";
import { ExecutionError } from "../../errors/domain-errors.js";
import { ChainView } from "../../execution/chain-view.js";
import { type BuiltPayload, buildPayload } from "../../execution/simulate/payload-builder.js";
import { defineMethod } from "../registry.js";

/** The engine API's `PayloadAttributesV3` (withdrawals and beacon root optional for older forks). */
const PayloadAttributes = z.object({
  timestamp: Uint64,
  prevRandao: Hash32,
  suggestedFeeRecipient: Address,
  withdrawals: z
    .array(z.object({ index: Uint64, validatorIndex: Uint64, address: Address, amount: Quantity }))
    .optional(),
  parentBeaconBlockRoot: Hash32.optional(),
});

const hexBytes = (hex: string) => Buffer.from(hex.slice(2), "hex");

function decodeTransaction(raw: string, index: number, block: Block): TypedTransaction {
  try {
    return createTxFromRLP(hexBytes(raw), { common: block.common });
  } catch (error) {
    throw new ExecutionError(`invalid transaction ${index}: ${(error as Error).message}`);
  }
}

/** The engine API's `ExecutionPayloadEnvelope` of a built block, as geth's `testing_buildBlockV1` answers. */
function payloadEnvelope(built: BuiltPayload) {
  const { block, blockValue, requests } = built;
  const { header } = block;
  return {
    executionPayload: {
      parentHash: toData(header.parentHash),
      feeRecipient: toData(header.coinbase.bytes),
      stateRoot: toData(header.stateRoot),
      receiptsRoot: toData(header.receiptTrie),
      logsBloom: toData(header.logsBloom),
      prevRandao: toData(header.mixHash),
      blockNumber: toQuantity(header.number),
      gasLimit: toQuantity(header.gasLimit),
      gasUsed: toQuantity(header.gasUsed),
      timestamp: toQuantity(header.timestamp),
      extraData: toData(header.extraData),
      baseFeePerGas: toQuantity(header.baseFeePerGas ?? 0n),
      blockHash: toData(block.hash()),
      transactions: block.transactions.map((tx) => toData(tx.serialize())),
      ...(block.withdrawals
        ? {
            withdrawals: block.withdrawals.map((w) => ({
              index: toQuantity(w.index),
              validatorIndex: toQuantity(w.validatorIndex),
              address: toData(w.address.bytes),
              amount: toQuantity(w.amount),
            })),
          }
        : {}),
      ...(header.blobGasUsed !== undefined
        ? {
            blobGasUsed: toQuantity(header.blobGasUsed),
            excessBlobGas: toQuantity(header.excessBlobGas ?? 0n),
          }
        : {}),
    },
    blockValue: toQuantity(blockValue),
    // Blob sidecars are not kept with built blocks: the bundle is always empty.
    blobsBundle: { commitments: [], proofs: [], blobs: [] },
    ...(requests ? { executionRequests: requests.map(toData) } : {}),
    shouldOverrideBuilder: false,
  };
}

/** The `testing_` namespace: engine-API-adjacent helpers for client testing. */
export const testingMethods = {
  testing_buildBlockV1: defineMethod({
    params: [Hash32, PayloadAttributes, z.array(Bytes), Bytes],
    required: 2,
    summary:
      "Builds (without importing) the block after the head from payload attributes and the given transactions (the pool's when null).",
    handler: async ([parentHash, attributes, transactions, extraData], services) => {
      const { chain, pool } = services;
      const parent = chain.head;
      if (toData(parent.hash()) !== parentHash.toLowerCase()) {
        throw new ExecutionError("parentHash is not current head");
      }
      const baseFee = parent.header.calcNextBaseFee();
      const built = await buildPayload(
        {
          common: chain.common,
          chainView: new ChainView(chain.store),
          stateAt: (block) => chain.stateAt(block),
        },
        parent,
        {
          timestamp: attributes.timestamp,
          prevRandao: hexBytes(attributes.prevRandao),
          suggestedFeeRecipient: hexBytes(attributes.suggestedFeeRecipient),
          ...(attributes.withdrawals ? { withdrawals: attributes.withdrawals } : {}),
          ...(attributes.parentBeaconBlockRoot
            ? { parentBeaconBlockRoot: hexBytes(attributes.parentBeaconBlockRoot) }
            : {}),
        },
        transactions === undefined
          ? { candidates: pool.executable(baseFee).map((entry) => entry.tx) }
          : { given: transactions.map((raw, i) => decodeTransaction(raw, i, parent)) },
        extraData === undefined ? new Uint8Array() : hexBytes(extraData),
      );
      return payloadEnvelope(built);
    },
  }),
};
