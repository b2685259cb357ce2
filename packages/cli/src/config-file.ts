import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { FlagSpec, FlagValues } from "./flag-spec.js";
import { UsageError } from "./usage-error.js";

/** The file read from the working directory when neither `--config` nor `STRATA_CONFIG` names one. */
export const DEFAULT_CONFIG_FILE = "strata.config.json";

/**
 * Reads the `command` section of a config file: `{"node": {"rpc.port": 8545}, "gateway": {...}}`.
 * Keys are flag names; values are strings, numbers, booleans, or arrays for repeatable flags.
 * An explicit path must exist; the default file is optional. Every bad field is a usage error naming it.
 */
export function readConfigSection(
  command: string,
  specs: Record<string, FlagSpec>,
  explicitPath: string | undefined,
  cwd: string,
): FlagValues {
  const path = resolve(cwd, explicitPath ?? DEFAULT_CONFIG_FILE);
  if (explicitPath === undefined && !existsSync(path)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new UsageError(`config file ${path}: ${reason}`);
  }
  if (!isObject(parsed))
    throw new UsageError(`config file ${path}: expected a JSON object of command sections`);
  const section = parsed[command];
  if (section === undefined) return {};
  if (!isObject(section))
    throw new UsageError(`config file ${path}: ${command}: expected an object of settings`);
  const values: FlagValues = {};
  for (const [name, raw] of Object.entries(section)) {
    const spec = specs[name];
    if (spec === undefined || name === "help") {
      throw new UsageError(`config file ${path}: ${command}.${name}: unknown setting`);
    }
    values[name] = settingValue(raw, spec, `config file ${path}: ${command}.${name}`);
  }
  return values;
}

function settingValue(raw: unknown, spec: FlagSpec, where: string): string | boolean | string[] {
  if (spec.type === "boolean") {
    if (typeof raw !== "boolean") throw new UsageError(`${where}: expected true or false`);
    return raw;
  }
  if (spec.multiple) {
    const list = Array.isArray(raw) ? raw : [raw];
    return list.map((item) => scalar(item, where));
  }
  return scalar(raw, where);
}

function scalar(raw: unknown, where: string): string {
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
  throw new UsageError(`${where}: expected a string or a number`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
