import type { RestResponse, TokenTransfer } from "@strata/gateway/rest";
import { Card, Fields } from "../components/layout.tsx";
import { AddressLink } from "../components/links.tsx";
import { Paged } from "../components/pager.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { TransfersTable } from "../components/tables.tsx";
import { formatNumber, formatUnits } from "../format.ts";
import { useApi } from "../hooks.ts";

/** One ERC-20 token: name, supply, holders, transfers. */
export function TokenPage({ address }: { address: string }) {
  const token = useApi<RestResponse<"/v1/tokens/{address}">>(`/v1/tokens/${encodeURIComponent(address)}`);
  if (token.status === "loading") return <Loading label="Loading token" />;
  if (token.status === "error") return <ErrorView error={token.error} what="Token" onRetry={token.reload} />;
  const t = token.data;
  return (
    <div className="page">
      <h1>
        <span data-testid="token-name">{t.name ?? "Token"}</span>{" "}
        {t.symbol ? <span className="muted">({t.symbol})</span> : null}
      </h1>
      <Card>
        <Fields
          rows={[
            ["Contract", <AddressLink key="a" address={t.address} full />],
            [
              "Total supply",
              t.decimals === null
                ? (t.totalSupply ?? "–")
                : `${formatUnits(t.totalSupply, t.decimals)} ${t.symbol ?? ""}`,
            ],
            ["Decimals", t.decimals === null ? "–" : String(t.decimals)],
            ["Holders", formatNumber(t.holderCount)],
            ["Transfers", `${formatNumber(t.transferCount)}${t.transferCountIsLowerBound ? "+" : ""}`],
          ]}
        />
      </Card>
      <Card title="Transfers">
        <Paged<TokenTransfer>
          path={`/v1/tokens/${t.address}/transfers`}
          what="Transfers"
          empty="No transfers yet."
          render={(items) => <TransfersTable transfers={items} />}
        />
      </Card>
    </div>
  );
}
