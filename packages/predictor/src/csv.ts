import type { PricePoint } from "./types.js";

/** One row of a `date,close` price file. */
export interface PriceRow {
  /** UTC calendar day, `YYYY-MM-DD`. */
  date: string;
  /** Close price of that day. */
  close: number;
}

/** A malformed price file; `line` is 1-based. */
export class PriceCsvError extends Error {
  override readonly name = "PriceCsvError";
  /** Line of the problem (1-based). */
  readonly line: number;

  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`);
    this.line = line;
  }
}

const HEADER = "date,close";
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DECIMAL = /^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Parses a daily price file: header `date,close`, then one `YYYY-MM-DD,<decimal>` row per day in
 * strictly increasing date order. Days may be missing (gaps are kept as they are); blank lines,
 * surrounding whitespace, CRLF line ends and a byte-order mark are tolerated. Closes must be
 * positive. Throws {@link PriceCsvError} naming the first offending line.
 */
export function parsePriceCsv(text: string): PriceRow[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const header = lines[0]?.trim() ?? "";
  if (header !== HEADER) throw new PriceCsvError(1, `expected header "${HEADER}", got "${header}"`);
  const rows: PriceRow[] = [];
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (index === 0 || line === "") return;
    const lineNumber = index + 1;
    const fields = line.split(",").map((f) => f.trim());
    if (fields.length !== 2) throw new PriceCsvError(lineNumber, `expected 2 fields, got ${fields.length}`);
    const [date, closeText] = fields as [string, string];
    if (!isCalendarDate(date))
      throw new PriceCsvError(lineNumber, `invalid date "${date}" (expected YYYY-MM-DD)`);
    const close = Number(closeText);
    if (!DECIMAL.test(closeText) || !(Number.isFinite(close) && close > 0)) {
      throw new PriceCsvError(lineNumber, `invalid close "${closeText}" (expected a positive number)`);
    }
    const previous = rows.at(-1);
    if (previous !== undefined && date <= previous.date) {
      throw new PriceCsvError(lineNumber, `date ${date} does not come after ${previous.date}`);
    }
    rows.push({ date, close });
  });
  return rows;
}

/** Price points at 00:00 UTC of each row's date. */
export function rowsToPricePoints(rows: readonly PriceRow[]): PricePoint[] {
  return rows.map((row) => ({ time: Date.parse(`${row.date}T00:00:00Z`) / 1000, price: row.close }));
}

function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
