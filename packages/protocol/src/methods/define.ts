import type { z } from "zod";

/** Parameter schemas by position: each decodes one positional argument and names it in -32602 messages. */
export type ParamSchemas = readonly z.ZodType[];

/**
 * One JSON-RPC method of the wire contract: its positional parameter schemas, how many leading ones
 * are required (the rest may be omitted or null), the schema of its result, and a one-line summary
 * (published by `rpc.discover`). Result schemas give the result's TypeScript type and its JSON
 * Schema; nothing checks results at run time.
 */
export interface MethodSpec<
  P extends ParamSchemas = ParamSchemas,
  R extends z.ZodType = z.ZodType,
  N extends number = number,
> {
  readonly params: P;
  readonly required: N;
  readonly result: R;
  readonly summary?: string;
}

/** Declares one method of the table, keeping its parameter tuple, required count and result schema as precise types. */
export function method<const P extends ParamSchemas, R extends z.ZodType, const N extends number>(
  spec: MethodSpec<P, R, N>,
): MethodSpec<P, R, N> {
  return spec;
}
