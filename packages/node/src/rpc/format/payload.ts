import { toData, toQuantity } from "@strata/protocol";
import type { BuiltPayload } from "../../execution/block/payload-builder.js";

/** The engine API's `ExecutionPayloadEnvelope` of a built block, as geth's `testing_buildBlockV1` answers. */
export function payloadEnvelope(built: BuiltPayload) {
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
