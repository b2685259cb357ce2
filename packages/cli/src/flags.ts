import { parseArgs } from "node:util";
import { UsageError } from "./usage-error.js";

/** A flag a command accepts: its type, and the `STRATA_*` environment variable that may set it. */
export interface FlagSpec {
  readonly type: "string" | "boolean";
  readonly description: string;
  readonly multiple?: boolean;
}

/** Parsed flag values: flag > environment (`STRATA_<NAME>`, dots and dashes as `_`) > absent. */
export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** Parses `argv` strictly against `specs`; unknown flags and positionals are usage errors. */
export function parseFlags(
  argv: readonly string[],
  specs: Record<string, FlagSpec>,
  env = process.env,
): FlagValues {
  let values: FlagValues;
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        Object.entries(specs).map(([name, spec]) => [
          name,
          { type: spec.type, multiple: spec.multiple ?? false },
        ]),
      ),
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as FlagValues;
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]!);
  }
  for (const [name, spec] of Object.entries(specs)) {
    if (values[name] !== undefined) continue;
    const fromEnv = env[envName(name)];
    if (fromEnv === undefined) continue;
    values[name] = spec.type === "boolean" ? fromEnv === "1" || fromEnv.toLowerCase() === "true" : fromEnv;
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

/** Formats the flag table of a command's help. */
export function formatFlags(specs: Record<string, FlagSpec>): string {
  return Object.entries(specs)
    .map(
      ([name, spec]) => `  --${name}${spec.type === "string" ? " VALUE" : ""}`.padEnd(30) + spec.description,
    )
    .join("\n");
}
