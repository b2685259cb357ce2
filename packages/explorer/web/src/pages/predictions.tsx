import type { RestResponse } from "@strata/gateway/rest";
import { useState } from "react";
import { LineChart } from "../components/charts.tsx";
import { Card, Fields, Stat } from "../components/layout.tsx";
import { ErrorView, Loading } from "../components/states.tsx";
import { formatDate, formatFraction, formatPrice, toMillis } from "../format.ts";
import { useApi } from "../hooks.ts";
import { Link } from "../router.tsx";

const shortDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const DAY_MS = 86_400_000;
const HORIZONS = [1, 7, 30, 90];
/** History shown around a prediction: three horizons back, at least a month. */
const windowDays = (horizon: number) => Math.max(30, 3 * horizon);

/** The quantile fan: nested central intervals by percentile, widest first, drawn when the prediction has them. */
const FAN = [
  { lower: "5", upper: "95", name: "90 % interval", className: "band band-outer" },
  { lower: "10", upper: "90", name: "80 % interval", className: "band" },
  { lower: "25", upper: "75", name: "50 % interval", className: "band band-inner" },
] as const;

/**
 * A prediction's `quantiles` as svc_getAIPrediction gives them: prices (decimal strings or numbers)
 * keyed by percentile, `{"5": …, "10": …, "25": …, "50": …, "75": …, "90": …, "95": …}`. Anything
 * else (absent, or not an object) gives no fan.
 */
function parseQuantiles(raw: unknown): Map<string, number> {
  const out = new Map<string, number>();
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return out;
  for (const [percentile, price] of Object.entries(raw)) {
    const p = Number(price);
    if (/^\d{1,2}$/.test(percentile) && Number.isFinite(p)) out.set(percentile, p);
  }
  return out;
}

function Prediction({ asset }: { asset: string }) {
  const [horizon, setHorizon] = useState(7);
  const [allHistory, setAllHistory] = useState(false);
  const view = useApi<RestResponse<"/v1/predictions/{asset}">>(
    `/v1/predictions/${encodeURIComponent(asset)}?horizon=${horizon}`,
  );
  if (view.status === "loading") return <Loading label={`Loading ${asset}`} />;
  if (view.status === "error") return <ErrorView error={view.error} what={`Prediction for ${asset}`} />;
  const { prediction: raw, history, backtest } = view.data;
  const hist = history
    .map((h) => ({ x: toMillis(h.timestamp) ?? 0, y: Number(h.price) }))
    .sort((a, b) => a.x - b.x);
  const last = hist[hist.length - 1];
  // Prices may arrive as decimal strings; the chart needs numbers. The horizon is in days.
  const p = raw && {
    ...raw,
    currentPrice: Number(raw.currentPrice),
    predictedPrice: Number(raw.predictedPrice),
    lower: Number(raw.lower),
    upper: Number(raw.upper),
    horizon: Number(raw.horizon),
  };
  const from = p ? { x: toMillis(p.timestamp) ?? last?.x ?? 0, y: p.currentPrice } : null;
  const target = p && from ? from.x + p.horizon * DAY_MS : 0;
  // Zoomed to the prediction by default, so the interval is not a sliver under years of history.
  const shown =
    p && from && !allHistory ? hist.filter((h) => h.x >= from.x - windowDays(p.horizon) * DAY_MS) : hist;
  const quantiles = parseQuantiles(raw?.quantiles);
  const fan = FAN.filter((b) => quantiles.has(b.lower) && quantiles.has(b.upper)).map((b) => ({
    ...b,
    lowerPrice: quantiles.get(b.lower)!,
    upperPrice: quantiles.get(b.upper)!,
  }));
  // Without quantiles, the 80 % interval alone (lower/upper).
  const bands =
    p && from
      ? (fan.length > 0 ? fan : [{ ...FAN[1], lowerPrice: p.lower, upperPrice: p.upper }]).map((b) => ({
          name: b.name,
          className: b.className,
          points: [
            { x: from.x, lower: from.y, upper: from.y },
            { x: target, lower: b.lowerPrice, upper: b.upperPrice },
          ],
        }))
      : [];
  return (
    <>
      {p ? (
        <div className="stats" data-testid="prediction-stats">
          <Stat label="Current price" value={formatPrice(p.currentPrice)} />
          <Stat
            label={`In ${p.horizon} ${p.horizon === 1 ? "day" : "days"}`}
            value={formatPrice(p.predictedPrice)}
          />
          <Stat label="80 % interval" value={`${formatPrice(p.lower)} – ${formatPrice(p.upper)}`} />
          <Stat
            label="Confidence"
            value={formatFraction(p.confidence)}
            hint="within ±5 % of the prediction"
          />
        </div>
      ) : (
        <p className="state not-available" data-testid="no-prediction">
          No prediction for {asset} yet: the model needs more price history.
        </p>
      )}
      <Card
        title={`${asset} price history${p ? " and prediction" : ""}`}
        actions={
          <div className="card-actions">
            <select
              aria-label="History shown"
              value={allHistory ? "all" : "recent"}
              onChange={(e) => setAllHistory(e.target.value === "all")}
            >
              <option value="recent">Near the prediction</option>
              <option value="all">All history</option>
            </select>
            <select aria-label="Horizon" value={horizon} onChange={(e) => setHorizon(Number(e.target.value))}>
              {HORIZONS.map((h) => (
                <option key={h} value={h}>
                  {h} {h === 1 ? "day" : "days"}
                </option>
              ))}
            </select>
          </div>
        }
      >
        <LineChart
          title={`${asset} price history with the prediction and its 80 % interval`}
          series={[
            { name: "Price", className: "s-primary", points: shown },
            ...(p && from
              ? [
                  {
                    name: "Prediction",
                    className: "s-accent",
                    dashed: true,
                    points: [from, { x: target, y: p.predictedPrice }],
                  },
                ]
              : []),
          ]}
          bands={bands}
          markers={
            p
              ? [
                  {
                    x: target,
                    y: p.predictedPrice,
                    className: "m-accent",
                    label: `Predicted ${formatPrice(p.predictedPrice)}`,
                  },
                ]
              : []
          }
          xLabel={shortDate}
        />
      </Card>
      <Card title="Backtest accuracy">
        {backtest ? (
          <Fields
            rows={[
              ["Mean absolute % error", formatFraction(backtest.mape)],
              ["Naive baseline error", formatFraction(backtest.baselineMape)],
              ["80 % interval coverage", formatFraction(backtest.coverage80)],
              ["Calibration error", formatFraction(backtest.calibrationError)],
              ["Horizon", `${backtest.horizon} d`],
            ]}
          />
        ) : (
          <p className="muted empty" data-testid="no-backtest">
            No backtest for this asset and horizon yet.
          </p>
        )}
        {p ? (
          <p className="muted small">
            Model {p.modelVersion} · source {p.source} · latest price {formatDate(p.timestamp)}
          </p>
        ) : null}
      </Card>
    </>
  );
}

/** Price predictions: pick an asset, see its history, the forecast with its interval, and the backtest. */
export function PredictionsPage({ asset }: { asset?: string | undefined }) {
  const assets = useApi<RestResponse<"/v1/predictions">>("/v1/predictions");
  if (assets.status === "loading") return <Loading label="Loading assets" />;
  if (assets.status === "error")
    return <ErrorView error={assets.error} what="Predictions" onRetry={assets.reload} feature />;
  const names = assets.data.items.map((feed) => feed.asset);
  const current = asset ?? names[0];
  return (
    <div className="page">
      <h1>Price predictions</h1>
      <nav className="tabs" aria-label="Assets">
        {names.map((n) => (
          <Link
            key={n}
            to={`/predictions/${encodeURIComponent(n)}`}
            className={n === current ? "tab active" : "tab"}
          >
            {n}
          </Link>
        ))}
      </nav>
      {current ? (
        <Prediction key={current} asset={current} />
      ) : (
        <p className="muted empty">No assets are tracked.</p>
      )}
    </div>
  );
}
