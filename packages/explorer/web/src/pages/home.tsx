import type { BlockStat, RestResponse } from "@strata/gateway/rest";
import { useState } from "react";
import { BarChart, LineChart } from "../components/charts.tsx";
import { Card, Stat } from "../components/layout.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { BlocksTable, TxTable } from "../components/tables.tsx";
import { formatNumber, toMillis } from "../format.ts";
import { type LiveMode, useApi, useCatchUp, useNewHeads } from "../hooks.ts";
import { Link } from "../router.tsx";

const LIVE_LABEL: Record<LiveMode, string> = {
  connecting: "connecting…",
  websocket: "live",
  polling: "live (polling)",
};

/** Transactions per second between consecutive blocks (oldest first). */
export function tpsSeries(stats: BlockStat[]): { x: number; y: number }[] {
  const sorted = [...stats].sort((a, b) => a.number - b.number);
  const out: { x: number; y: number }[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = toMillis(sorted[i - 1]!.timestamp) ?? 0;
    const cur = toMillis(sorted[i]!.timestamp) ?? 0;
    const dt = Math.max(1, (cur - prev) / 1000);
    out.push({ x: sorted[i]!.number, y: sorted[i]!.transactionCount / dt });
  }
  return out;
}

/** The home page: chain stats, charts, and the latest blocks and transactions, live. */
export function HomePage() {
  const { version: heads, mode } = useNewHeads();
  // While the index trails the node (a block announced before the page opened, say), look again.
  const [behind, setBehind] = useState(false);
  const version = heads + useCatchUp(behind);
  const chain = useApi<RestResponse<"/v1/chain">>("/v1/chain", version);
  const lagging = chain.status === "ok" && (chain.data.indexerLag ?? 0) > 0;
  if (lagging !== behind) setBehind(lagging);
  const blocks = useApi<RestResponse<"/v1/blocks">>("/v1/blocks?limit=10", version);
  const txs = useApi<RestResponse<"/v1/transactions">>("/v1/transactions?limit=10", version);
  const stats = useApi<RestResponse<"/v1/stats/blocks">>("/v1/stats/blocks?count=50", version);

  return (
    <div className="page home">
      <div className="page-head">
        <h1>Strata network</h1>
        <span className={`live live-${mode}`} data-testid="live-mode">
          <span className="dot" aria-hidden="true" /> {LIVE_LABEL[mode]}
        </span>
      </div>
      {chain.status === "loading" ? (
        <Loading label="Loading chain stats" />
      ) : chain.status === "error" ? (
        <ErrorView error={chain.error} what="Chain stats" onRetry={chain.reload} />
      ) : (
        <div className="stats" data-testid="chain-stats">
          <Stat
            label="Latest block"
            value={<span data-testid="head">{formatNumber(chain.data.blockNumber)}</span>}
          />
          <Stat label="Avg block time" value={`${formatNumber(chain.data.avgBlockTimeSeconds)} s`} />
          <Stat label="TPS" value={formatNumber(chain.data.tps)} />
          <Stat label="Transactions" value={formatNumber(chain.data.totalTransactions)} />
          <Stat label="Addresses" value={formatNumber(chain.data.totalAddresses)} />
          <Stat label="Validators" value={formatNumber(chain.data.validatorCount)} />
          <Stat
            label="Chain"
            value={`${chain.data.network} · ${chain.data.chainId}`}
            hint={lagging ? `index ${chain.data.indexerLag} blocks behind` : "index in sync"}
          />
        </div>
      )}
      <div className="grid-2">
        <Card title="Transactions per second">
          {stats.status === "ok" ? (
            <LineChart
              title="Transactions per second over recent blocks"
              series={[{ name: "TPS", className: "s-primary", points: tpsSeries(stats.data) }]}
              xLabel={(x) => `#${Math.round(x)}`}
            />
          ) : stats.status === "error" ? (
            <ErrorView error={stats.error} what="Block statistics" feature />
          ) : (
            <Loading />
          )}
        </Card>
        <Card title="Gas used per block">
          {stats.status === "ok" ? (
            <BarChart
              title="Gas used per block"
              names={["Gas used"]}
              classNames={["b-primary"]}
              groups={[...stats.data]
                .sort((a, b) => a.number - b.number)
                .map((s) => ({ label: `#${s.number}`, values: [Number(s.gasUsed)] }))}
            />
          ) : stats.status === "error" ? (
            <ErrorView error={stats.error} what="Block statistics" feature />
          ) : (
            <Loading />
          )}
        </Card>
      </div>
      <div className="grid-2">
        <Card title="Latest blocks" actions={<Link to="/blocks">View all →</Link>}>
          {blocks.status === "ok" ? (
            <BlocksTable blocks={blocks.data.items} />
          ) : blocks.status === "error" ? (
            <ErrorView error={blocks.error} what="Blocks" onRetry={blocks.reload} />
          ) : (
            <Loading label="Loading blocks" />
          )}
        </Card>
        <Card title="Latest transactions" actions={<Link to="/txs">View all →</Link>}>
          {txs.status === "ok" ? (
            txs.data.items.length === 0 ? (
              <p className="muted empty">No transactions yet.</p>
            ) : (
              <TxTable txs={txs.data.items} compact />
            )
          ) : txs.status === "error" ? (
            <ErrorView error={txs.error} what="Transactions" onRetry={txs.reload} />
          ) : (
            <Loading label="Loading transactions" />
          )}
        </Card>
      </div>
    </div>
  );
}
