import type { BlockHeader, HeaderData } from "@ethereumjs/block";

/**
 * The fields of `header` as data for a new header (a call's context with another base fee, a
 * replay's template), holding the header's own values: `header.toJSON()` turns every field to hex
 * that the new header then parses back, about a tenth of a millisecond per header, paid for every
 * new head by each execution worker. Fields the header's rules lack stay undefined, as they are in
 * the header.
 */
export function headerDataOf(header: BlockHeader): HeaderData {
  const data: { -readonly [K in keyof HeaderData]: HeaderData[K] } = {
    parentHash: header.parentHash,
    uncleHash: header.uncleHash,
    coinbase: header.coinbase.bytes,
    stateRoot: header.stateRoot,
    transactionsTrie: header.transactionsTrie,
    receiptTrie: header.receiptTrie,
    logsBloom: header.logsBloom,
    difficulty: header.difficulty,
    number: header.number,
    gasLimit: header.gasLimit,
    gasUsed: header.gasUsed,
    timestamp: header.timestamp,
    extraData: header.extraData,
    mixHash: header.mixHash,
    nonce: header.nonce,
  };
  if (header.baseFeePerGas !== undefined) data.baseFeePerGas = header.baseFeePerGas;
  if (header.withdrawalsRoot !== undefined) data.withdrawalsRoot = header.withdrawalsRoot;
  if (header.blobGasUsed !== undefined) data.blobGasUsed = header.blobGasUsed;
  if (header.excessBlobGas !== undefined) data.excessBlobGas = header.excessBlobGas;
  if (header.parentBeaconBlockRoot !== undefined) data.parentBeaconBlockRoot = header.parentBeaconBlockRoot;
  if (header.requestsHash !== undefined) data.requestsHash = header.requestsHash;
  if (header.blockAccessListHash !== undefined) data.blockAccessListHash = header.blockAccessListHash;
  if (header.slotNumber !== undefined) data.slotNumber = header.slotNumber;
  return data;
}
