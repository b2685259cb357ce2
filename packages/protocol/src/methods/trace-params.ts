import { z } from "zod";
import { StateOverrides } from "./simulate-params.js";

const traceConfigFields = {
  tracer: z.string().nullish(),
  tracerConfig: z.record(z.string(), z.unknown()).nullish(),
  timeout: z.string().nullish(),
  disableStack: z.boolean().nullish(),
  disableStorage: z.boolean().nullish(),
  enableMemory: z.boolean().nullish(),
  enableReturnData: z.boolean().nullish(),
  limit: z.number().int().nonnegative().nullish(),
};

/** geth's `TraceConfig` as decoded: the struct logger's options inline, or a named tracer with its config. */
export interface TraceOptions {
  readonly tracer?: string;
  readonly tracerConfig?: Readonly<Record<string, unknown>>;
  /** A Go duration (`"5s"`, `"300ms"`). */
  readonly timeout?: string;
  readonly enableMemory?: boolean;
  readonly disableStack?: boolean;
  readonly disableStorage?: boolean;
  readonly enableReturnData?: boolean;
  /** Stop recording once the output exceeds this many bytes; 0 = unlimited. */
  readonly limit?: number;
}

/** The options present in a decoded config (Go's decoder treats null like an absent field). */
function present(config: Record<string, unknown>): TraceOptions {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config))
    if (value !== null && value !== undefined) options[key] = value;
  return options as TraceOptions;
}

/** geth's `TraceConfig` (unknown fields are ignored, as Go's decoder does). */
export const TraceConfig = z.object(traceConfigFields).transform(present);

/** geth's `TraceCallConfig`: a `TraceConfig` plus state overrides. */
export const TraceCallConfig = z
  .object({ ...traceConfigFields, stateOverrides: StateOverrides.nullish() })
  .transform(({ stateOverrides, ...config }) => ({ options: present(config), stateOverrides }));
