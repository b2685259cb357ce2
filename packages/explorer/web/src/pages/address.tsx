import type { RestResponse, TokenTransfer, TransactionSummary } from "@strata/gateway/rest";
import { useState } from "react";
import { Card, Fields } from "../components/layout.tsx";
import { AddressLink, TokenLink, TxLink } from "../components/links.tsx";
import { Paged } from "../components/pager.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { TransfersTable, TxTable } from "../components/tables.tsx";
import { formatEther, formatNumber } from "../format.ts";
import { useApi } from "../hooks.ts";
import { systemAddress } from "../system-addresses.ts";

type Tab = "transactions" | "transfers" | "code";

/** One address: balance, nonce, its transactions and token transfers, and contract code. */
export function AddressPage({ address }: { address: string }) {
  const info = useApi<RestResponse<"/v1/addresses/{address}">>(
    `/v1/addresses/${encodeURIComponent(address)}`,
  );
  const [tab, setTab] = useState<Tab>("transactions");
  if (info.status === "loading") return <Loading label="Loading address" />;
  if (info.status === "error") return <ErrorView error={info.error} what="Address" onRetry={info.reload} />;
  const a = info.data;
  const known = systemAddress(a.address);
  const tabs: [Tab, string][] = [
    [
      "transactions",
      `Transactions (${formatNumber(a.transactionCount)}${a.transactionCountIsLowerBound ? "+" : ""})`,
    ],
    ["transfers", "Token transfers"],
    ...(a.isContract ? ([["code", "Code"]] as [Tab, string][]) : []),
  ];
  return (
    <div className="page">
      <div className="page-head">
        <h1 data-testid="address-title">{known ? known.name : a.isContract ? "Contract" : "Address"}</h1>
        {a.token ? <TokenLink address={a.address} symbol={`${a.token.symbol ?? "Token"} token →`} /> : null}
      </div>
      <Card>
        <Fields
          rows={[
            [
              "Address",
              <span className="mono break" key="a" data-testid="address">
                {a.address}
              </span>,
            ],
            ...(known ? ([["What it is", known.description]] as [string, React.ReactNode][]) : []),
            [
              "Balance",
              <span key="b" data-testid="balance">
                {formatEther(a.balance)}
              </span>,
            ],
            ["Nonce", formatNumber(a.nonce)],
            [
              "Transactions",
              `${formatNumber(a.transactionCount)}${a.transactionCountIsLowerBound ? "+" : ""}`,
            ],
            ...(a.creator
              ? ([
                  ["Creator", <AddressLink key="c" address={a.creator} />],
                  ["Created in", <TxLink key="ct" hash={a.creationTransaction} />],
                ] as [string, React.ReactNode][])
              : []),
          ]}
        />
      </Card>
      <div className="tabs" role="tablist">
        {tabs.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={tab === id}
            className={tab === id ? "tab active" : "tab"}
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <Card>
        {tab === "transactions" ? (
          <Paged<TransactionSummary>
            path={`/v1/addresses/${a.address}/transactions`}
            what="Transactions"
            empty="No transactions for this address."
            render={(txs) => <TxTable txs={txs} focus={a.address} />}
          />
        ) : tab === "transfers" ? (
          <Paged<TokenTransfer>
            path={`/v1/addresses/${a.address}/token-transfers`}
            what="Token transfers"
            empty="No token transfers for this address."
            render={(t) => <TransfersTable transfers={t} />}
          />
        ) : a.code ? (
          <pre className="mono break code" data-testid="code">
            {a.code}
          </pre>
        ) : (
          <p className="muted empty">No code.</p>
        )}
      </Card>
    </div>
  );
}
