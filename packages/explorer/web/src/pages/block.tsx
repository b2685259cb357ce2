import type { RestResponse } from "@strata/gateway/rest";
import { Card, Fields } from "../components/layout.tsx";
import { AddressLink, BlockLink } from "../components/links.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { TxTable } from "../components/tables.tsx";
import { formatDate, formatFraction, formatGwei, formatNumber, timeAgo } from "../format.ts";
import { useApi } from "../hooks.ts";
import { Link } from "../router.tsx";

/** One block: header fields and its transactions. */
export function BlockPage({ id }: { id: string }) {
  const block = useApi<RestResponse<"/v1/blocks/{numberOrHash}">>(`/v1/blocks/${encodeURIComponent(id)}`);
  if (block.status === "loading") return <Loading label="Loading block" />;
  if (block.status === "error") return <ErrorView error={block.error} what="Block" onRetry={block.reload} />;
  const b = block.data;
  const gasUsed = Number(b.gasUsed);
  const gasLimit = Number(b.gasLimit);
  return (
    <div className="page">
      <div className="page-head">
        <h1>
          Block <span data-testid="block-number">#{formatNumber(b.number)}</span>
        </h1>
        <div className="prev-next">
          {b.number > 0 ? <Link to={`/block/${b.number - 1}`}>← Previous</Link> : null}
          <Link to={`/block/${b.number + 1}`}>Next →</Link>
        </div>
      </div>
      <Card>
        <Fields
          rows={[
            [
              "Hash",
              <span className="mono break" key="h">
                {b.hash}
              </span>,
            ],
            ["Parent", <BlockLink key="p" block={b.parentHash} />],
            ["Time", `${formatDate(b.timestamp)} (${timeAgo(b.timestamp)})`],
            ["Proposer", <AddressLink key="m" address={b.miner} full />],
            ["Transactions", formatNumber(b.transactionCount)],
            ["Gas used", `${formatNumber(gasUsed)} (${formatFraction(gasLimit ? gasUsed / gasLimit : 0)})`],
            ["Gas limit", formatNumber(gasLimit)],
            ["Base fee", b.baseFeePerGas === null ? "–" : formatGwei(b.baseFeePerGas)],
            ["Size", `${formatNumber(b.size)} bytes`],
          ]}
        />
      </Card>
      <Card title={`Transactions (${b.transactionCount})`}>
        {b.transactions.length > 0 ? (
          <TxTable txs={b.transactions} />
        ) : (
          <p className="muted empty">This block has no transactions.</p>
        )}
      </Card>
    </div>
  );
}
