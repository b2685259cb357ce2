import type { Common } from "@ethereumjs/common";
import { ExecutionError } from "../../errors/domain-errors.js";
import { CallTracer } from "./call-tracer.js";
import { PrestateTracer } from "./prestate-tracer.js";
import { StructLogger, type StructLoggerOptions } from "./struct-logger.js";
import type { Tracer } from "./tracer.js";

/** geth's `TraceConfig`: the struct logger's options inline, or a named tracer with its own config. */
export interface TraceOptions extends StructLoggerOptions {
  readonly tracer?: string;
  readonly tracerConfig?: Readonly<Record<string, unknown>>;
  /** A Go duration (`"5s"`, `"300ms"`); the default is 5 s per transaction, as in geth. */
  readonly timeout?: string;
}

/** The tracers this node serves besides the default struct logger. */
export const TRACER_NAMES = ["callTracer", "prestateTracer"] as const;

const DEFAULT_TIMEOUT_MS = 5_000;

/** Creates the tracer `options` name for one transaction; throws for unknown tracers or bad config. */
export function createTracer(options: TraceOptions, common: Common): Tracer {
  const config = options.tracerConfig ?? {};
  switch (options.tracer) {
    case undefined:
      return new StructLogger(options);
    case "callTracer":
      return new CallTracer({ onlyTopCall: flag(config, "onlyTopCall"), withLog: flag(config, "withLog") });
    case "prestateTracer": {
      const prestate = {
        diffMode: flag(config, "diffMode"),
        disableCode: flag(config, "disableCode"),
        disableStorage: flag(config, "disableStorage"),
        includeEmpty: flag(config, "includeEmpty"),
      };
      if (prestate.diffMode && prestate.includeEmpty) {
        throw new ExecutionError("cannot use diffMode with includeEmpty");
      }
      return new PrestateTracer(prestate, common.isActivatedEIP(6780));
    }
    default:
      throw new ExecutionError(
        `tracer not found: ${options.tracer} (supported: ${TRACER_NAMES.join(", ")} and the default struct logger; JavaScript tracers are not supported)`,
      );
  }
}

/** The time budget of one traced transaction in milliseconds, from geth's `timeout` option. */
export function traceTimeoutMs(options: TraceOptions): number {
  return options.timeout === undefined ? DEFAULT_TIMEOUT_MS : parseGoDuration(options.timeout);
}

function flag(config: Readonly<Record<string, unknown>>, name: string): boolean {
  const value = config[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== "boolean") {
    throw new ExecutionError(
      `json: cannot unmarshal ${typeof value} into Go struct field .${name} of type bool`,
    );
  }
  return value;
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go `time.Duration` string (`"1m30s"`, `"1.5s"`, `"250ms"`) into milliseconds. */
export function parseGoDuration(text: string): number {
  const invalid = () => new ExecutionError(`time: invalid duration "${text}"`);
  const match = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(text);
  if (text === "0") return 0;
  if (!match) throw invalid();
  let total = 0;
  for (const part of text.replace(/^[+-]/, "").matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(part[1]) * UNIT_MS[part[2]!]!;
  }
  return match[1] === "-" ? -total : total;
}
