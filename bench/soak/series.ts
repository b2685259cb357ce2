/**
 * Samples of one process during a soak run (RssAnon, heap, external memory, cache sizes) and the verdict on
 * whether each series levels off.
 */
import { readFile } from "node:fs/promises";

/** One process's figures at one moment; `values` maps a series name to its value. */
export interface Sample {
  /** Seconds since the load started. */
  readonly atSeconds: number;
  readonly values: Record<string, number>;
}

/** How one series behaved over the run. */
export interface SeriesTrend {
  readonly series: string;
  readonly first: number;
  readonly last: number;
  readonly max: number;
  /** Least-squares slope over the first and the last third of the samples, per minute. */
  readonly slopeFirstThirdPerMinute: number;
  readonly slopeLastThirdPerMinute: number;
  /**
   * Growth over the last half of the run, percent: the least-squares line through the last half's
   * samples, from its value at the middle of the run to its value at the end (single samples of heap
   * used scatter by tens of MB, depending on where they fall between two collections).
   */
  readonly lastHalfGrowthPercent: number;
  /** The documented bound of a cache series, when it has one. */
  readonly bound?: number;
  /**
   * True when the last third's slope is at most a quarter of the first third's, not positive, or under
   * 5 % of the last value an hour.
   */
  readonly levelsOff: boolean;
  /** True when the series grew by less than 5 % over the last half of the run. */
  readonly meetsTarget: boolean;
}

/** RssAnon of process `pid` in bytes (anonymous memory: heap and buffers, not mapped files), from /proc. */
export async function rssAnonBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^RssAnon:\s+(\d+)\s+kB/m.exec(status);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
}

/** Runtime series a soak follows, by their name in the report. */
const RUNTIME_SERIES: Readonly<Record<string, string>> = {
  nodejs_heap_size_used_bytes: "heapUsedBytes",
  nodejs_heap_size_total_bytes: "heapTotalBytes",
  nodejs_external_memory_bytes: "externalBytes",
};

/**
 * The series a soak follows from a Prometheus text exposition: the main thread's heap used and
 * committed, its external memory (array buffers and other memory outside the heap that V8 knows of),
 * and every `strata_cache_size{cache="…"}` with its `strata_cache_bound{cache="…"}` (as `bound:<cache>`).
 */
export function metricSeries(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line === "") continue;
    const match = /^(\w+)(?:\{([^}]*)\})? (\S+)/.exec(line);
    if (!match) continue;
    const [, name, labels = "", raw] = match;
    const value = Number(raw);
    if (!Number.isFinite(value)) continue;
    const runtime = RUNTIME_SERIES[name!];
    if (runtime !== undefined && labels === "") out[runtime] = value;
    const cache = /cache="([^"]+)"/.exec(labels)?.[1];
    if (cache === undefined) continue;
    if (name === "strata_cache_size") out[`cache:${cache}`] = value;
    if (name === "strata_cache_bound") out[`bound:${cache}`] = value;
  }
  return out;
}

/** Least-squares line through `points`: its slope (per second) and its value at the mean x. */
function leastSquares(points: readonly { x: number; y: number }[]): {
  slope: number;
  mx: number;
  my: number;
} {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return { slope: den === 0 ? 0 : num / den, mx, my };
}

function slopePerMinute(points: readonly { x: number; y: number }[]): number {
  return points.length < 2 ? 0 : leastSquares(points).slope * 60;
}

/** Growth of the fitted line over the last half of `points`, percent of its value at the middle. */
function lastHalfGrowth(points: readonly { x: number; y: number }[]): number {
  const half = points.slice(Math.floor(points.length / 2));
  if (half.length < 2) return 0;
  const { slope, mx, my } = leastSquares(half);
  const start = my + slope * (half[0]!.x - mx);
  const end = my + slope * (half.at(-1)!.x - mx);
  return start === 0 ? (end === 0 ? 0 : 100) : ((end - start) / start) * 100;
}

/** The trend of every series in `samples` (bounds are attached to their cache, not reported alone). */
export function trends(samples: readonly Sample[]): SeriesTrend[] {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.values)))].filter(
    (n) => !n.startsWith("bound:"),
  );
  return names.map((series) => {
    const points = samples
      .filter((s) => s.values[series] !== undefined)
      .map((s) => ({ x: s.atSeconds, y: s.values[series]! }));
    const third = Math.max(2, Math.floor(points.length / 3));
    const slopeFirst = slopePerMinute(points.slice(0, third));
    const slopeLast = slopePerMinute(points.slice(-third));
    const last = points.at(-1)?.y ?? 0;
    const growth = lastHalfGrowth(points);
    const bounds = samples
      .map((s) => s.values[series.replace(/^cache:/, "bound:")])
      .filter((b) => b !== undefined);
    const bound = series.startsWith("cache:") && bounds.length > 0 ? Math.max(...bounds) : undefined;
    return {
      series,
      first: points[0]?.y ?? 0,
      last,
      max: Math.max(...points.map((p) => p.y)),
      slopeFirstThirdPerMinute: slopeFirst,
      slopeLastThirdPerMinute: slopeLast,
      lastHalfGrowthPercent: growth,
      ...(bound === undefined ? {} : { bound }),
      levelsOff: slopeLast <= 0 || slopeLast <= slopeFirst / 4 || slopeLast * 60 < last * 0.05,
      meetsTarget: growth < 5,
    };
  });
}
