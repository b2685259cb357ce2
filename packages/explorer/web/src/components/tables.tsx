import type { Block, TokenTransfer, TransactionSummary } from "@strata/gateway/rest";
import { formatEther, formatNumber, formatUnits, timeAgo } from "../format.ts";
import { useNow } from "../hooks.ts";
import { AddressLink, BlockLink, StatusBadge, TokenLink, TxLink } from "./links.tsx";

/** Blocks, newest first. */
export function BlocksTable({ blocks }: { blocks: Block[] }) {
  const now = useNow();
  return (
    <div className="table-wrap">
      <table className="table" data-testid="blocks-table">
        <thead>
          <tr>
            <th>Block</th>
            <th>Age</th>
            <th className="num">Txs</th>
            <th className="hide-sm">Miner</th>
            <th className="num hide-sm">Gas used</th>
          </tr>
        </thead>
        <tbody>
          {blocks.map((b) => (
            <tr key={b.hash} data-block={b.number}>
              <td>
                <BlockLink block={b.number} />
              </td>
              <td className="muted">{timeAgo(b.timestamp, now)}</td>
              <td className="num">{b.transactionCount}</td>
              <td className="hide-sm">
                <AddressLink address={b.miner} />
              </td>
              <td className="num hide-sm">{formatNumber(b.gasUsed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Transactions; `focus` marks in/out relative to an address; `compact` leaves out block, age and status. */
export function TxTable({
  txs,
  focus,
  compact = false,
}: {
  txs: TransactionSummary[];
  focus?: string;
  compact?: boolean;
}) {
  const now = useNow();
  const me = focus?.toLowerCase();
  return (
    <div className="table-wrap">
      <table className="table" data-testid="tx-table">
        <thead>
          <tr>
            <th>Hash</th>
            {compact ? null : <th className="hide-sm">Block</th>}
            {compact ? null : <th className="hide-sm">Age</th>}
            <th className="hide-sm">From</th>
            <th>To</th>
            <th className="num">Value</th>
            {compact ? null : <th className="hide-sm">Status</th>}
          </tr>
        </thead>
        <tbody>
          {txs.map((t) => (
            <tr key={t.hash}>
              <td>
                <TxLink hash={t.hash} />
              </td>
              {compact ? null : (
                <td className="hide-sm">
                  <BlockLink block={t.blockNumber} />
                </td>
              )}
              {compact ? null : (
                <td className="muted hide-sm">
                  {t.timestamp !== undefined ? timeAgo(t.timestamp, now) : "–"}
                </td>
              )}
              <td className="hide-sm">
                {me && t.from.toLowerCase() === me ? (
                  <span className="tag">self</span>
                ) : (
                  <AddressLink address={t.from} />
                )}
              </td>
              <td>
                {t.to === null ? (
                  t.contractAddress ? (
                    <span>
                      <span className="tag">create</span> <AddressLink address={t.contractAddress} />
                    </span>
                  ) : (
                    <span className="tag">create</span>
                  )
                ) : me && t.to.toLowerCase() === me ? (
                  <span className="tag">self</span>
                ) : (
                  <AddressLink address={t.to} />
                )}
              </td>
              <td className="num">{formatEther(t.value)}</td>
              {compact ? null : (
                <td className="hide-sm">
                  <StatusBadge status={t.status} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** ERC-20 transfers. */
export function TransfersTable({
  transfers,
  showTx = true,
}: {
  transfers: TokenTransfer[];
  showTx?: boolean;
}) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid="transfers-table">
        <thead>
          <tr>
            {showTx ? <th>Transaction</th> : null}
            <th className="num">Amount</th>
            <th>From</th>
            <th>To</th>
          </tr>
        </thead>
        <tbody>
          {transfers.map((t) => (
            <tr key={`${t.transactionHash}-${t.logIndex}`}>
              {showTx ? (
                <td>
                  <TxLink hash={t.transactionHash} />
                </td>
              ) : null}
              <td className="num">
                {t.decimals === null ? t.value : formatUnits(t.value, t.decimals)}{" "}
                <TokenLink address={t.token} symbol={t.symbol} />
              </td>
              <td>
                <AddressLink address={t.from} />
              </td>
              <td>
                <AddressLink address={t.to} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
