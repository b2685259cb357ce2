import type { DePINNode, RestResponse } from "@strata/gateway/rest";
import { useState } from "react";
import { BarChart } from "../components/charts.tsx";
import { Card } from "../components/layout.tsx";
import { AddressLink, StatusBadge } from "../components/links.tsx";
import { Paged } from "../components/pager.tsx";
import { formatEther, formatFraction, timeAgo } from "../format.ts";
import { useApi, useNow } from "../hooks.ts";

const TYPES = ["", "compute", "storage", "wireless", "sensor", "energy"];
const STATUSES = ["", "active", "inactive"];

/** Node counts by region, from the first page of the list (REST pages hold at most 100). */
function RegionChart() {
  const nodes = useApi<RestResponse<"/v1/depin/nodes">>("/v1/depin/nodes?limit=100");
  if (nodes.status !== "ok") return null;
  const counts = new Map<string, number>();
  for (const n of nodes.data.items) counts.set(n.region, (counts.get(n.region) ?? 0) + 1);
  return (
    <Card title="Nodes by region">
      <BarChart
        title="DePIN nodes by region"
        names={["Nodes"]}
        classNames={["b-primary"]}
        groups={[...counts.entries()].sort().map(([label, n]) => ({ label, values: [n] }))}
      />
    </Card>
  );
}

/** DePIN nodes: filter by type, region and status; heartbeat age and uptime. */
export function DepinPage() {
  const [type, setType] = useState("");
  const [region, setRegion] = useState("");
  const [status, setStatus] = useState("");
  const now = useNow(5000);
  const params = new URLSearchParams();
  if (type) params.set("type", type);
  if (region) params.set("region", region);
  if (status) params.set("status", status);
  const qs = params.toString();
  return (
    <div className="page">
      <h1>DePIN nodes</h1>
      <RegionChart />
      <Card
        title="Nodes"
        actions={
          <div className="filters">
            <select aria-label="Type" value={type} onChange={(e) => setType(e.target.value)}>
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {t || "all types"}
                </option>
              ))}
            </select>
            <input
              aria-label="Region"
              placeholder="region"
              value={region}
              onChange={(e) => setRegion(e.target.value.trim())}
            />
            <select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value)}>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s || "any status"}
                </option>
              ))}
            </select>
          </div>
        }
      >
        <Paged<DePINNode>
          key={qs}
          path={`/v1/depin/nodes${qs ? `?${qs}` : ""}`}
          what="DePIN nodes"
          feature
          empty="No DePIN nodes match."
          render={(nodes) => (
            <div className="table-wrap">
              <table className="table" data-testid="depin-table">
                <thead>
                  <tr>
                    <th>Node</th>
                    <th>Type</th>
                    <th>Region</th>
                    <th>Status</th>
                    <th>Heartbeat</th>
                    <th className="num hide-sm">Uptime</th>
                    <th className="num hide-sm">Stake</th>
                    <th className="hide-sm">Owner</th>
                  </tr>
                </thead>
                <tbody>
                  {nodes.map((n) => (
                    <tr key={String(n.id)} data-id={String(n.id)}>
                      <td title={n.endpoint}>
                        <span className="mono">
                          {String(n.id).length > 12 ? `${String(n.id).slice(0, 10)}…` : String(n.id)}
                        </span>
                        {n.endpoint.startsWith("simulated://") ? (
                          <>
                            {" "}
                            <span className="tag">simulated</span>
                          </>
                        ) : null}
                      </td>
                      <td>{n.type}</td>
                      <td>{n.region}</td>
                      <td>
                        <StatusBadge status={n.status} />
                      </td>
                      <td className="muted">
                        {n.lastHeartbeatAt ? timeAgo(n.lastHeartbeatAt, now) : "never"}
                      </td>
                      <td className="num hide-sm" data-testid="uptime">
                        {formatFraction(n.uptime)}
                      </td>
                      <td className="num hide-sm">{formatEther(n.stake)}</td>
                      <td className="hide-sm">
                        <AddressLink address={n.owner} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        />
      </Card>
    </div>
  );
}
