import { parseArgs } from "node:util";
import { readConfigSection } from "./config-file.js";
import type { FlagSpec, FlagValues } from "./flag-spec.js";
import { UsageError } from "./usage-error.js";

export type { FlagSpec, FlagValues } from "./flag-spec.js";

/** Where flag values come from besides the command line. */
export interface FlagSources {
  /** Environment variables (`STRATA_*`); default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** The command whose section of the config file applies (e.g. `"node"`); no file is read without it. */
  readonly command?: string;
  /** Directory in which `strata.config.json` is looked for; default the working directory. */
  readonly cwd?: string;
}

/** The flag that names a config file; every command accepts it. */
const CONFIG_FLAG = "config";

/**
 * Parses `argv` strictly against `specs`; unknown flags and positionals are usage errors.
 * Values missing from the command line come from `STRATA_*` variables, then from the command's
 * section of the config file (`--config FILE`, `STRATA_CONFIG`, or `./strata.config.json`).
 */
export function parseFlags(
  argv: readonly string[],
  specs: Record<string, FlagSpec>,
  sources: FlagSources = {},
): FlagValues {
  const env = sources.env ?? process.env;
  let values: FlagValues;
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(
          Object.entries(specs).map(([name, spec]) => [
            name,
            { type: spec.type, multiple: spec.multiple ?? false },
          ]),
        ),
        [CONFIG_FLAG]: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as FlagValues;
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]!);
  }
  const configPath = (values[CONFIG_FLAG] as string | undefined) ?? env.STRATA_CONFIG;
  delete values[CONFIG_FLAG];
  for (const [name, spec] of Object.entries(specs)) {
    if (values[name] !== undefined) continue;
    const fromEnv = env[envName(name)];
    if (fromEnv === undefined) continue;
    values[name] = spec.type === "boolean" ? fromEnv === "1" || fromEnv.toLowerCase() === "true" : fromEnv;
  }
  if (sources.command !== undefined) {
    const fromFile = readConfigSection(sources.command, specs, configPath, sources.cwd ?? process.cwd());
    for (const [name, value] of Object.entries(fromFile)) values[name] ??= value;
  }
  return values;
}

/** The environment variable that sets flag `name`. */
export function envName(name: string): string {
  return `STRATA_${name.replace(/[.-]/g, "_").toUpperCase()}`;
}

/** Reads an integer flag within bounds, or the default. */
export function intFlag(
  values: FlagValues,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || n < min || n > max) {
    throw new UsageError(`--${name}: expected an integer in ${min}..${max}, got "${String(raw)}"`);
  }
  return n;
}

/**
 * Reads a duration flag (`500ms`, `5s`, `2m`, `3h`; a bare number is seconds) as milliseconds, at
 * most `maxMs`; `0` stands for no limit (Infinity), as geth's duration flags do.
 */
export function durationFlag(values: FlagValues, name: string, fallbackMs: number, maxMs: number): number {
  const raw = values[name];
  if (raw === undefined) return fallbackMs;
  const match = typeof raw === "string" ? /^(\d+)(ms|s|m|h)?$/.exec(raw) : null;
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] ?? "s"]! : Number.NaN;
  if (!match || ms > maxMs) {
    throw new UsageError(
      `--${name}: expected a duration such as 500ms, 5s, 2m or 3h (at most ${maxMs / 1000} s; 0 for none), got "${String(raw)}"`,
    );
  }
  return ms === 0 ? Number.POSITIVE_INFINITY : ms;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Formats the flag table of a command's help, ending with the `--config` flag every command accepts. */
export function formatFlags(specs: Record<string, FlagSpec>): string {
  const rows = Object.entries(specs).map(([name, spec]) => ({
    flag: `--${name}${spec.type === "string" ? " VALUE" : ""}`,
    description: spec.description,
  }));
  rows.push({
    flag: `--${CONFIG_FLAG} FILE`,
    description: "settings file, one section per command (default ./strata.config.json if present)",
  });
  // A flag longer than the column still gets a space before its description.
  return rows.map((row) => `  ${row.flag} `.padEnd(30) + row.description).join("\n");
}
