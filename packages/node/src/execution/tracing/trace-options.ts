import type { Common } from "@ethereumjs/common";
import type { TraceOptions } from "@strata/protocol";
import { ExecutionError } from "../../errors/domain-errors.js";
import { CallTracer } from "./call-tracer.js";
import { PrestateTracer } from "./prestate-tracer.js";
import { StructLogger } from "./struct-logger.js";
import type { Tracer } from "./tracer.js";

/** The tracers this node serves besides the default struct logger. */
export const TRACER_NAMES = ["callTracer", "prestateTracer"] as const;

/** The node's bounds on every trace (`--rpc.tracetimeout`, `traceMaxSteps`, `traceMaxBytes`). */
export interface TraceLimits {
  /** Longest a trace may run; a client's `timeout` above it is lowered to it. */
  readonly timeoutMs: number;
  /** Most struct-logger entries one answer may hold. */
  readonly maxSteps: number;
  /** Most struct-logger output one answer may hold, in JSON bytes. */
  readonly maxBytes: number;
}

/** The default bounds (DECISIONS.md "Limits"). */
export const DEFAULT_TRACE_LIMITS: TraceLimits = {
  timeoutMs: 5_000,
  maxSteps: 200_000,
  maxBytes: 25 * 1024 * 1024,
};

/** Creates the tracer `options` name for one transaction; throws for unknown tracers or bad config. */
export function createTracer(
  options: TraceOptions,
  common: Common,
  limits: TraceLimits = DEFAULT_TRACE_LIMITS,
): Tracer {
  const config = options.tracerConfig ?? {};
  switch (options.tracer) {
    case undefined:
      return new StructLogger(options, { maxSteps: limits.maxSteps, maxBytes: limits.maxBytes });
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

/**
 * The time budget of one traced transaction in milliseconds: geth's `timeout` option (default 5 s,
 * as geth), never more than the node's maximum `maxMs`.
 */
export function traceTimeoutMs(options: TraceOptions, maxMs = DEFAULT_TRACE_LIMITS.timeoutMs): number {
  const asked =
    options.timeout === undefined ? DEFAULT_TRACE_LIMITS.timeoutMs : parseGoDuration(options.timeout);
  return Math.min(asked, maxMs);
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
