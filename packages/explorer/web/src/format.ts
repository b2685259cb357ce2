/** Display helpers: amounts, hashes, times. Pure functions, no React. */

/** Formats an integer amount (decimal string) with `decimals` as a human number, trimming zeros. */
export function formatUnits(
  value: string | number | bigint | null | undefined,
  decimals = 18,
  maxFraction = 6,
) {
  if (value === null || value === undefined || value === "") return "–";
  let v: bigint;
  try {
    v = BigInt(value);
  } catch {
    return String(value);
  }
  const negative = v < 0n;
  if (negative) v = -v;
  const base = 10n ** BigInt(decimals);
  const whole = v / base;
  let fraction = (v % base).toString().padStart(decimals, "0").slice(0, maxFraction).replace(/0+$/, "");
  if (fraction === "" && v % base !== 0n && whole === 0n) fraction = "0".repeat(maxFraction - 1) + "1";
  const wholeText = whole.toLocaleString("en-US");
  const text = fraction ? `${wholeText}.${fraction}` : wholeText;
  return negative ? `-${text}` : text;
}

/** Formats wei as STRA. */
export function formatEther(wei: string | number | bigint | null | undefined): string {
  return `${formatUnits(wei, 18)} STRA`;
}

/** Formats wei as gwei (gas prices). */
export function formatGwei(wei: string | number | bigint | null | undefined): string {
  return `${formatUnits(wei, 9, 4)} gwei`;
}

/** Formats a whole number with thousands separators. */
export function formatNumber(n: number | string | bigint | null | undefined, maxFraction = 2): string {
  if (n === null || n === undefined || n === "") return "–";
  if (typeof n === "bigint") return n.toLocaleString("en-US");
  const v = Number(n);
  if (!Number.isFinite(v)) return String(n);
  return v.toLocaleString("en-US", { maximumFractionDigits: maxFraction });
}

/**
 * Formats a ratio as a percentage: `0.061` is "6.1 %". Every ratio the API sends (commission, uptime,
 * APR, confidence, backtest errors and coverage) is a decimal fraction, as a JSON number or a decimal
 * string; this is the only percentage formatter, and it never guesses a unit.
 */
export function formatFraction(value: number | string | null | undefined, maxFraction = 2): string {
  const v = value === null || value === undefined || value === "" ? Number.NaN : Number(value);
  if (!Number.isFinite(v)) return "–";
  return `${(v * 100).toLocaleString("en-US", { maximumFractionDigits: maxFraction })} %`;
}

/** Shortens a hash or address to `0x1234…abcd`. */
export function shortHash(hash: string | null | undefined, keep = 6): string {
  if (!hash) return "–";
  return hash.length <= keep * 2 + 3 ? hash : `${hash.slice(0, keep + 2)}…${hash.slice(-keep + 2)}`;
}

/** Converts an API timestamp (ISO string or unix seconds) to milliseconds since the epoch. */
export function toMillis(ts: string | number | null | undefined): number | null {
  if (ts === null || ts === undefined || ts === "") return null;
  if (typeof ts === "number") return ts < 1e12 ? ts * 1000 : ts;
  if (/^\d+$/.test(ts)) return toMillis(Number(ts));
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? null : ms;
}

/** "12 s ago", "3 min ago", "2 h ago", "4 d ago". */
export function timeAgo(ts: string | number | null | undefined, now = Date.now()): string {
  const ms = toMillis(ts);
  if (ms === null) return "–";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** Full UTC date-time, e.g. `2026-11-22 02:50:13 UTC`. */
export function formatDate(ts: string | number | null | undefined): string {
  const ms = toMillis(ts);
  if (ms === null) return "–";
  return `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;
}

/** Formats a price (number or decimal string) with a precision that suits its size. */
export function formatPrice(price: number | string | null | undefined): string {
  const p = price === null || price === undefined || price === "" ? Number.NaN : Number(price);
  if (!Number.isFinite(p)) return "–";
  const digits = p >= 1000 ? 2 : p >= 1 ? 4 : 6;
  return p.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 2 });
}

/** What a search string looks like, so the UI can route without asking when it is unambiguous. */
export function classifyQuery(q: string): "number" | "hash" | "address" | "text" {
  const s = q.trim();
  if (/^\d+$/.test(s)) return "number";
  if (/^0x[0-9a-fA-F]{64}$/.test(s)) return "hash";
  if (/^0x[0-9a-fA-F]{40}$/.test(s)) return "address";
  return "text";
}
