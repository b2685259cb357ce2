import type { Block } from "@ethereumjs/block";
import type { RpcReceipt, RpcTransaction } from "@strata/protocol";
import type { TxPosition } from "../../../storage/address-index.js";
import type { StoredReceipt } from "../../../storage/records.js";
import { formatReceipt } from "../../format/receipt.js";
import { formatTransaction } from "../../format/transaction.js";
import type { RpcServices } from "../../services.js";

/** The largest page `ots_searchTransactions*` serve (Erigon's default). */
export const MAX_PAGE_SIZE = 25;

/** A page of an address's history, newest first (Erigon's `TransactionsWithReceipts`). */
export interface TransactionsWithReceipts {
  txs: RpcTransaction[];
  receipts: (RpcReceipt & { timestamp: number })[];
  firstPage: boolean;
  lastPage: boolean;
}

/**
 * Takes positions until at least `pageSize` are taken, finishing the block of the last one (a
 * block's matches are never split across pages, as in Erigon); `more` says whether any were left.
 */
function takePage(positions: Iterable<TxPosition>, pageSize: number): { page: TxPosition[]; more: boolean } {
  const page: TxPosition[] = [];
  for (const position of positions) {
    const last = page[page.length - 1];
    if (page.length >= pageSize && last && last.block !== position.block) return { page, more: true };
    page.push(position);
  }
  return { page, more: false };
}

function materialise(
  services: RpcServices,
  positions: readonly TxPosition[],
): Omit<TransactionsWithReceipts, "firstPage" | "lastPage"> {
  const txs: RpcTransaction[] = [];
  const receipts: TransactionsWithReceipts["receipts"] = [];
  let block: Block | undefined;
  let stored: readonly StoredReceipt[] = [];
  for (const { block: number, index } of positions) {
    if (block?.header.number !== number) {
      block = services.chain.blockByNumber(number);
      stored = block ? (services.chain.store.receipts(block.hash()) ?? []) : [];
    }
    const tx = block?.transactions[index];
    if (!block || !tx || !stored[index]) continue;
    txs.push(formatTransaction(tx, stored[index].sender, { block, index }));
    receipts.push({ ...formatReceipt(block, stored, index), timestamp: Number(block.header.timestamp) });
  }
  return { txs, receipts };
}

/** Transactions touching `address` in blocks before `blockNumber` (0: from the head), newest first. */
export function searchBefore(
  services: RpcServices,
  address: Uint8Array,
  blockNumber: bigint,
  pageSize: number,
): TransactionsWithReceipts {
  const head = services.chain.head.header.number;
  const positions = services.chain.store.addressTxsBefore(
    address,
    blockNumber === 0n ? undefined : blockNumber,
    head,
  );
  const { page, more } = takePage(positions, pageSize);
  return { ...materialise(services, page), firstPage: blockNumber === 0n, lastPage: !more };
}

/** Transactions touching `address` in blocks after `blockNumber` (0: from genesis), newest first. */
export function searchAfter(
  services: RpcServices,
  address: Uint8Array,
  blockNumber: bigint,
  pageSize: number,
): TransactionsWithReceipts {
  const head = services.chain.head.header.number;
  const { page, more } = takePage(services.chain.store.addressTxsAfter(address, blockNumber, head), pageSize);
  const found = materialise(services, page.reverse());
  return { ...found, firstPage: !more, lastPage: blockNumber === 0n };
}
