import type { RestResponse } from "@strata/gateway/rest";
import { useState } from "react";
import { BarChart, LineChart } from "../components/charts.tsx";
import { Card } from "../components/layout.tsx";
import { AddressLink, StatusBadge } from "../components/links.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { formatEther, formatFraction, formatNumber, shortHash } from "../format.ts";
import { useApi } from "../hooks.ts";

function History({ address }: { address: string }) {
  const history = useApi<RestResponse<"/v1/validators/{address}/history">>(
    `/v1/validators/${address}/history?limit=100`,
  );
  if (history.status === "loading") return <Loading label="Loading history" />;
  if (history.status === "error") return <ErrorView error={history.error} what="Validator history" feature />;
  const epochs = [...history.data.items].sort((a, b) => a.epoch - b.epoch);
  if (epochs.length === 0) return <p className="muted empty">No epochs recorded yet.</p>;
  return (
    <div className="grid-2">
      <BarChart
        title={`Blocks proposed and missed per epoch by ${address}`}
        names={["Proposed", "Missed"]}
        classNames={["b-good", "b-bad"]}
        groups={epochs.map((e) => ({
          label: `E${e.epoch}`,
          values: [e.blocksProposed ?? 0, e.blocksMissed ?? 0],
        }))}
      />
      <LineChart
        title={`Uptime per epoch of ${address}`}
        series={[
          {
            name: "Uptime",
            className: "s-primary",
            points: epochs.map((e) => ({ x: e.epoch, y: Number(e.uptime) })),
          },
        ]}
        xLabel={(x) => `E${Math.round(x)}`}
        yLabel={(y) => formatFraction(y)}
      />
    </div>
  );
}

/** The validator set: stake, commission, uptime, proposed and missed blocks. */
export function ValidatorsPage() {
  const list = useApi<RestResponse<"/v1/validators">>("/v1/validators");
  const [selected, setSelected] = useState<string | null>(null);
  if (list.status === "loading") return <Loading label="Loading validators" />;
  if (list.status === "error")
    return <ErrorView error={list.error} what="Validators" onRetry={list.reload} feature />;
  const validators = list.data.items;
  return (
    <div className="page">
      <h1>Validators</h1>
      <Card title="Blocks proposed and missed">
        <BarChart
          title="Blocks proposed and missed per validator"
          names={["Proposed", "Missed"]}
          classNames={["b-good", "b-bad"]}
          groups={validators.map((v) => ({
            label: shortHash(v.address, 4),
            values: [v.blocksProposed, v.blocksMissed],
          }))}
        />
      </Card>
      <Card title={`Validator set (${validators.length})`}>
        {validators.length === 0 ? (
          <p className="muted empty">No validators.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="validators-table">
              <thead>
                <tr>
                  <th>Validator</th>
                  <th className="hide-sm">Status</th>
                  <th className="num">Stake</th>
                  <th className="num hide-sm">Commission</th>
                  <th className="num">Uptime</th>
                  <th className="num hide-sm">Proposed</th>
                  <th className="num hide-sm">Missed</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {validators.map((v) => (
                  <tr key={v.address} data-address={v.address.toLowerCase()}>
                    <td>
                      <AddressLink address={v.address} />
                    </td>
                    <td className="hide-sm">
                      <StatusBadge status={v.jailed ? "jailed" : v.status} />
                    </td>
                    <td className="num">{formatEther(v.stake)}</td>
                    <td className="num hide-sm" data-testid="commission">
                      {formatFraction(v.commission)}
                    </td>
                    <td className="num" data-testid="uptime">
                      {formatFraction(v.uptime)}
                    </td>
                    <td className="num hide-sm">{formatNumber(v.blocksProposed)}</td>
                    <td className="num hide-sm">{formatNumber(v.blocksMissed)}</td>
                    <td>
                      <button type="button" className="link" onClick={() => setSelected(v.address)}>
                        History
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      {selected ? (
        <Card
          title={
            <>
              History of <span className="mono">{shortHash(selected)}</span>
            </>
          }
        >
          <History address={selected} />
        </Card>
      ) : null}
    </div>
  );
}
