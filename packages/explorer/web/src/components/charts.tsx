import { useEffect, useState } from "react";

/** Hand-drawn SVG charts, drawn at their container's width so text never stretches; no chart library. */

const H = 200;
const PAD = { top: 12, right: 12, bottom: 26, left: 56 };

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

function compact(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${(v / 1e9).toFixed(1)}G`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${(v / 1e3).toFixed(0)}k`;
  if (a >= 100) return v.toFixed(0);
  return Number(v.toPrecision(3)).toString();
}

/** A line chart with optional interval bands; `xLabel` formats the x axis. */
export function LineChart({
  series,
  bands = [],
  title,
  xLabel = (x) => String(x),
  yLabel = compact,
  markers = [],
}: {
  series: Series[];
  bands?: Band[];
  title: string;
  xLabel?: (x: number) => string;
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
  const sx = (x: number) => PAD.left + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (y: number) => PAD.top + (1 - (y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  const path = (pts: { x: number; y: number }[]) =>
    pts.map((p, i) => `${i === 0 ? "M" : "L"}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ");
  const xTicks = x1 === x0 ? [x0] : [x0, x0 + (x1 - x0) / 2, x1];
  return (
    <figure className="chart" ref={ref}>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={title}>
        <title>{title}</title>
        {niceTicks(y0, y1).map((t) => (
          <g key={t}>
            <line className="grid" x1={PAD.left} x2={W - PAD.right} y1={sy(t)} y2={sy(t)} />
            <text className="axis" x={PAD.left - 6} y={sy(t) + 4} textAnchor="end">
              {yLabel(t)}
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
  const innerW = W - PAD.left - PAD.right;
  const slot = innerW / groups.length;
  const barW = Math.max(2, slot * 0.7);
  const sy = (y: number) => PAD.top + (1 - y / max) * (H - PAD.top - PAD.bottom);
  // Show as many x labels as fit side by side (about 6.5 px per character at 11 px).
  const labelWidth = Math.max(...groups.map((g) => g.label.length)) * 6.5 + 12;
  const labelEvery = Math.max(1, Math.ceil(groups.length / Math.max(1, Math.floor(innerW / labelWidth))));
  return (
    <figure className="chart" ref={ref}>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={title}>
        <title>{title}</title>
        {niceTicks(0, max).map((t) => (
          <g key={t}>
            <line className="grid" x1={PAD.left} x2={W - PAD.right} y1={sy(t)} y2={sy(t)} />
            <text className="axis" x={PAD.left - 6} y={sy(t) + 4} textAnchor="end">
              {compact(t)}
            </text>
          </g>
        ))}
        {groups.map((g, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
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
                <text className="axis" x={x + barW / 2} y={H - 8} textAnchor="middle">
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
