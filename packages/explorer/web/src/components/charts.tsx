import { useEffect, useState } from "react";

/** Hand-drawn SVG charts, drawn at their container's width so text never stretches; no chart library. */

const H = 200;
/** Top, right and bottom padding; the left one is measured from the y labels. */
const PAD = { top: 12, right: 12, bottom: 26 };

/** A series of points for `LineChart`. */
export interface Series {
  name: string;
  points: { x: number; y: number }[];
  className: string;
  dashed?: boolean;
}

/** A shaded band between `lower` and `upper` at each x (a prediction interval). */
export interface Band {
  name: string;
  points: { x: number; lower: number; upper: number }[];
  className: string;
}

/** Tracks the rendered width of the element given to the returned ref (600 until first measured). */
function useWidth(): [(el: HTMLElement | null) => void, number] {
  const [el, setEl] = useState<HTMLElement | null>(null);
  const [width, setWidth] = useState(600);
  useEffect(() => {
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry && entry.contentRect.width > 0) setWidth(Math.round(entry.contentRect.width));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [el]);
  return [setEl, width];
}

function niceTicks(min: number, max: number, count = 4): number[] {
  if (min === max) return [min];
  const span = max - min;
  const step0 = span / count;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + 1e-9; v += step)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** The axis text's font (`.chart .axis` in styles.css), for measuring labels before drawing them. */
const AXIS_FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
let measureContext: CanvasRenderingContext2D | null | undefined;

/** Rendered width in px of axis text, measured with a canvas (estimated without one). */
function textWidth(text: string): number {
  if (measureContext === undefined) measureContext = document.createElement("canvas").getContext("2d");
  if (!measureContext) return text.length * 7;
  measureContext.font = AXIS_FONT;
  return measureContext.measureText(text).width;
}

/**
 * Labels for evenly spaced axis ticks, abbreviated (100k, 1.2M, 3G) with just as many decimals as
 * the step needs, so neighbours differ and none is longer than it must be.
 */
function tickLabels(ticks: readonly number[]): string[] {
  const max = Math.max(0, ...ticks.map(Math.abs));
  const [divisor, suffix] =
    max >= 1e9 ? [1e9, "G"] : max >= 1e6 ? [1e6, "M"] : max >= 1e4 ? [1e3, "k"] : [1, ""];
  const step = ticks.length > 1 ? Math.abs(ticks[1]! - ticks[0]!) / divisor : 1;
  let decimals = 0;
  while (decimals < 8 && Math.abs(step * 10 ** decimals - Math.round(step * 10 ** decimals)) > 1e-6)
    decimals++;
  return ticks.map((t) => (t === 0 ? "0" : `${(t / divisor).toFixed(decimals)}${suffix}`));
}

/** The x of a centred label moved inside the chart when it would stick out at either side. */
function clampLabel(x: number, label: string, width: number): number {
  const half = textWidth(label) / 2 + 2;
  return Math.min(Math.max(x, half), width - half);
}

/** Left padding that fits the widest of `labels` (6 px gap to the plot, 6 px margin). */
const leftPadFor = (labels: readonly string[]) => Math.ceil(Math.max(0, ...labels.map(textWidth))) + 12;

/** A line chart with optional interval bands; `xLabel` formats the x axis. */
export function LineChart({
  series,
  bands = [],
  title,
  xLabel = (x) => String(x),
  yLabel,
  markers = [],
}: {
  series: Series[];
  bands?: Band[];
  title: string;
  xLabel?: (x: number) => string;
  /** Formats one y tick; by default the ticks are abbreviated together ({@link tickLabels}). */
  yLabel?: (y: number) => string;
  markers?: { x: number; y: number; className: string; label: string }[];
}) {
  const [ref, W] = useWidth();
  const xs = [
    ...series.flatMap((s) => s.points.map((p) => p.x)),
    ...bands.flatMap((b) => b.points.map((p) => p.x)),
    ...markers.map((m) => m.x),
  ];
  const ys = [
    ...series.flatMap((s) => s.points.map((p) => p.y)),
    ...bands.flatMap((b) => b.points.flatMap((p) => [p.lower, p.upper])),
    ...markers.map((m) => m.y),
  ].filter(Number.isFinite);
  if (xs.length === 0 || ys.length === 0) {
    return (
      <p className="muted chart-empty" ref={ref}>
        No data yet.
      </p>
    );
  }
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
  const padY = (y1 - y0) * 0.08;
  y0 = y0 >= 0 && y0 - padY < 0 ? 0 : y0 - padY;
  y1 += padY;
  const yTicks = niceTicks(y0, y1);
  const yTexts = yLabel ? yTicks.map(yLabel) : tickLabels(yTicks);
  const left = leftPadFor(yTexts);
  const sx = (x: number) => left + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - left - PAD.right);
  const sy = (y: number) => PAD.top + (1 - (y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  const path = (pts: { x: number; y: number }[]) =>
    pts.map((p, i) => `${i === 0 ? "M" : "L"}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ");
  // First, middle and last x labels, the middle one only when the three fit side by side.
  const ends = x1 === x0 ? [x0] : [x0, x1];
  const middle = x0 + (x1 - x0) / 2;
  const fitsMiddle =
    ends.length === 2 &&
    [x0, middle, x1].reduce((sum, x) => sum + textWidth(xLabel(x)) + 16, 0) <= W - left - PAD.right;
  const xTicks = fitsMiddle ? [x0, middle, x1] : ends;
  return (
    <figure className="chart" ref={ref}>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={title}>
        <title>{title}</title>
        {yTicks.map((t, i) => (
          <g key={t}>
            <line className="grid" x1={left} x2={W - PAD.right} y1={sy(t)} y2={sy(t)} />
            <text className="axis" x={left - 6} y={sy(t) + 4} textAnchor="end">
              {yTexts[i]}
            </text>
          </g>
        ))}
        {xTicks.map((t, i) => (
          <text
            key={t}
            className="axis"
            x={sx(t)}
            y={H - 8}
            textAnchor={i === 0 ? "start" : i === xTicks.length - 1 ? "end" : "middle"}
          >
            {xLabel(t)}
          </text>
        ))}
        {bands.map((b) => (
          <path
            key={b.name}
            className={b.className}
            d={`${b.points.map((p, i) => `${i === 0 ? "M" : "L"}${sx(p.x)},${sy(p.upper)}`).join(" ")} ${[
              ...b.points,
            ]
              .reverse()
              .map((p) => `L${sx(p.x)},${sy(p.lower)}`)
              .join(" ")} Z`}
          />
        ))}
        {series.map((s) => (
          <path
            key={s.name}
            className={`line ${s.className}`}
            d={path(s.points)}
            strokeDasharray={s.dashed ? "5 4" : undefined}
            vectorEffect="non-scaling-stroke"
          />
        ))}
        {markers.map((m) => (
          <circle key={m.label} className={m.className} cx={sx(m.x)} cy={sy(m.y)} r={4}>
            <title>{m.label}</title>
          </circle>
        ))}
      </svg>
      <figcaption className="legend">
        {series.map((s) => (
          <span key={s.name} className={`key ${s.className}`}>
            {s.name}
          </span>
        ))}
        {bands.map((b) => (
          <span key={b.name} className={`key ${b.className}`}>
            {b.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** One bar group for `BarChart`: a label and a value per series. */
export interface BarGroup {
  label: string;
  values: number[];
}

/** A stacked bar chart; `names` and `classNames` describe the stacked series. */
export function BarChart({
  groups,
  names,
  classNames,
  title,
}: {
  groups: BarGroup[];
  names: string[];
  classNames: string[];
  title: string;
}) {
  const [ref, W] = useWidth();
  if (groups.length === 0) {
    return (
      <p className="muted chart-empty" ref={ref}>
        No data yet.
      </p>
    );
  }
  const max = Math.max(1, ...groups.map((g) => g.values.reduce((a, b) => a + b, 0)));
  // Bars are counts: whole-number ticks only.
  const yTicks = niceTicks(0, max).filter(Number.isInteger);
  const yTexts = tickLabels(yTicks);
  const left = leftPadFor(yTexts);
  const innerW = W - left - PAD.right;
  const slot = innerW / groups.length;
  const barW = Math.max(2, slot * 0.7);
  const sy = (y: number) => PAD.top + (1 - y / max) * (H - PAD.top - PAD.bottom);
  // Show as many x labels as fit side by side.
  const labelWidth = Math.max(...groups.map((g) => textWidth(g.label))) + 12;
  const labelEvery = Math.max(1, Math.ceil(groups.length / Math.max(1, Math.floor(innerW / labelWidth))));
  return (
    <figure className="chart" ref={ref}>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={title}>
        <title>{title}</title>
        {yTicks.map((t, i) => (
          <g key={t}>
            <line className="grid" x1={left} x2={W - PAD.right} y1={sy(t)} y2={sy(t)} />
            <text className="axis" x={left - 6} y={sy(t) + 4} textAnchor="end">
              {yTexts[i]}
            </text>
          </g>
        ))}
        {groups.map((g, i) => {
          const x = left + i * slot + (slot - barW) / 2;
          let acc = 0;
          return (
            <g key={g.label}>
              {g.values.map((v, j) => {
                const y = sy(acc + v);
                const h = sy(acc) - y;
                acc += v;
                return (
                  <rect
                    key={names[j]}
                    className={classNames[j]}
                    x={x}
                    y={y}
                    width={barW}
                    height={Math.max(0, h)}
                  >
                    <title>{`${g.label} · ${names[j]}: ${v.toLocaleString("en-US")}`}</title>
                  </rect>
                );
              })}
              {i % labelEvery === 0 ? (
                <text className="axis" x={clampLabel(x + barW / 2, g.label, W)} y={H - 8} textAnchor="middle">
                  {g.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      {names.length > 1 ? (
        <figcaption className="legend">
          {names.map((n, j) => (
            <span key={n} className={`key ${classNames[j]}`}>
              {n}
            </span>
          ))}
        </figcaption>
      ) : null}
    </figure>
  );
}
