import type { Log, RestResponse } from "@strata/gateway/rest";
import { useEffect, useState } from "react";
import { type CallFrame, traceCalls } from "../api.ts";
import { Card, Fields } from "../components/layout.tsx";
import { AddressLink, BlockLink, StatusBadge } from "../components/links.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { TransfersTable } from "../components/tables.tsx";
import { formatDate, formatEther, formatGwei, formatNumber, timeAgo } from "../format.ts";
import { useApi } from "../hooks.ts";

function DecodedArgs({ args }: { args: Record<string, unknown> }) {
  return (
    <dl className="args">
      {Object.entries(args).map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd className="mono break">{typeof v === "object" ? JSON.stringify(v) : String(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function LogView({ log }: { log: Log }) {
  return (
    <li className="log" data-testid="log">
      <div className="log-head">
        <span className="tag">#{log.index}</span> <AddressLink address={log.address} />
        {log.decoded ? <strong className="event"> {log.decoded.event}</strong> : null}
      </div>
      {log.decoded ? (
        <DecodedArgs args={log.decoded.args} />
      ) : (
        <>
          {log.topics.map((t, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a topic's position is its identity.
            <div key={i} className="mono break small">
              topic{i}: {t}
            </div>
          ))}
          <div className="mono break small">data: {log.data}</div>
        </>
      )}
    </li>
  );
}

function CallTree({ frame, depth = 0 }: { frame: CallFrame; depth?: number }) {
  return (
    <li className="call" style={{ marginLeft: depth === 0 ? 0 : 12 }}>
      <span className="tag">{frame.type}</span> <AddressLink address={frame.from} /> →{" "}
      <AddressLink address={frame.to} />
      {frame.value && BigInt(frame.value) > 0n ? <span> · {formatEther(BigInt(frame.value))}</span> : null}
      {frame.gasUsed && BigInt(frame.gasUsed) > 0n ? (
        <span className="muted"> · gas {formatNumber(Number(BigInt(frame.gasUsed)))}</span>
      ) : null}
      {frame.error ? <span className="text-bad"> · {frame.revertReason ?? frame.error}</span> : null}
      {frame.calls?.length ? (
        <ul>
          {frame.calls.map((c, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: call frames have no identity besides their position.
            <CallTree key={i} frame={c} depth={depth + 1} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** Internal calls from the node's call tracer; renders nothing when the node does not trace. */
function InternalCalls({ hash }: { hash: string }) {
  const [trace, setTrace] = useState<CallFrame | null>(null);
  useEffect(() => {
    const ctrl = new AbortController();
    setTrace(null);
    traceCalls(hash, ctrl.signal).then(setTrace, () => undefined);
    return () => ctrl.abort();
  }, [hash]);
  if (!trace?.calls?.length) return null;
  return (
    <Card title="Internal calls">
      <ul className="call-tree" data-testid="internal-calls">
        {trace.calls.map((c, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: call frames have no identity besides their position.
          <CallTree key={i} frame={c} />
        ))}
      </ul>
    </Card>
  );
}

/** One transaction: status, revert reason, value and fees, decoded logs, token transfers, internal calls. */
export function TransactionPage({ hash }: { hash: string }) {
  const tx = useApi<RestResponse<"/v1/transactions/{hash}">>(`/v1/transactions/${encodeURIComponent(hash)}`);
  if (tx.status === "loading") return <Loading label="Loading transaction" />;
  if (tx.status === "error") return <ErrorView error={tx.error} what="Transaction" onRetry={tx.reload} />;
  const t = tx.data;
  const transfers = t.tokenTransfers;
  return (
    <div className="page">
      <div className="page-head">
        <h1>Transaction</h1>
        <span data-testid="tx-status">
          <StatusBadge status={t.status} />
        </span>
      </div>
      {t.status === "reverted" ? (
        <div className="state error" role="alert" data-testid="revert-reason">
          <strong>Reverted</strong>
          {t.revertReason ? `: ${t.revertReason}` : " without a reason."}
        </div>
      ) : null}
      <Card>
        <Fields
          rows={[
            [
              "Hash",
              <span className="mono break" key="h" data-testid="tx-hash">
                {t.hash}
              </span>,
            ],
            ["Block", <BlockLink key="b" block={t.blockNumber} />],
            [
              "Time",
              t.timestamp === undefined ? "–" : `${formatDate(t.timestamp)} (${timeAgo(t.timestamp)})`,
            ],
            ["From", <AddressLink key="f" address={t.from} full />],
            [
              "To",
              t.to ? (
                <AddressLink key="t" address={t.to} full />
              ) : (
                <span key="t">
                  <span className="tag">contract creation</span>{" "}
                  <AddressLink address={t.contractAddress} full />
                </span>
              ),
            ],
            ["Value", formatEther(t.value)],
            [
              "Fee",
              t.gasUsed != null && t.effectiveGasPrice
                ? formatEther(BigInt(t.gasUsed) * BigInt(t.effectiveGasPrice))
                : "–",
            ],
            ["Gas used / limit", `${formatNumber(t.gasUsed ?? null)} / ${formatNumber(t.gas)}`],
            ["Gas price", formatGwei(t.effectiveGasPrice ?? t.gasPrice)],
            ["Type / nonce / index", `${t.type} / ${t.nonce} / ${t.index ?? "–"}`],
          ]}
        />
        {t.input && t.input !== "0x" ? (
          <details className="input">
            <summary>Input data ({(t.input.length - 2) / 2} bytes)</summary>
            <pre className="mono break">{t.input}</pre>
          </details>
        ) : null}
      </Card>
      {transfers.length > 0 ? (
        <Card title={`Token transfers (${transfers.length})`}>
          <TransfersTable transfers={transfers} showTx={false} />
        </Card>
      ) : null}
      <InternalCalls hash={t.hash} />
      <Card title={`Logs (${t.logs.length})`}>
        {t.logs.length > 0 ? (
          <ul className="logs">
            {t.logs.map((l) => (
              <LogView key={l.index} log={l} />
            ))}
          </ul>
        ) : (
          <p className="muted empty">No logs.</p>
        )}
      </Card>
    </div>
  );
}
