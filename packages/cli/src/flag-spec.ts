/** A flag a command accepts: its type, and the `STRATA_*` environment variable that may set it. */
export interface FlagSpec {
  readonly type: "string" | "boolean";
  readonly description: string;
  readonly multiple?: boolean;
}

/** Parsed flag values: flag > environment (`STRATA_<NAME>`, dots and dashes as `_`) > config file > absent. */
export type FlagValues = Record<string, string | boolean | string[] | undefined>;
