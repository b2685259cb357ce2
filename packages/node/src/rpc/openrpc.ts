import { z } from "zod";
import type { MethodDefinition } from "./registry.js";

/** The OpenRPC version of the documents built here. */
export const OPENRPC_VERSION = "1.2.6";

/** A JSON Schema (draft 2020-12) object. */
export type JsonSchema = Record<string, unknown>;

/** An OpenRPC content descriptor: a named parameter or result with its schema. */
export interface ContentDescriptor {
  readonly name: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
}

/** An OpenRPC method object. */
export interface OpenRpcMethod {
  readonly name: string;
  readonly summary?: string;
  readonly paramStructure: "by-position";
  readonly params: ContentDescriptor[];
  readonly result: ContentDescriptor;
}

/** An OpenRPC document (https://spec.open-rpc.org). */
export interface OpenRpcDocument {
  readonly openrpc: string;
  readonly info: { readonly title: string; readonly version: string };
  readonly methods: OpenRpcMethod[];
}

/**
 * The JSON Schema of what a parameter accepts on the wire. Parameter schemas parse and then
 * transform (hex text to numbers, tags to selectors), so it is the input side that is described;
 * checks that only code can express (refinements) are left out rather than failing the document.
 */
export function parameterSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as JsonSchema;
  return rest;
}

/** Describes one method: its positional parameters (`param0`, `param1`, ...) and an open result. */
export function describeMethod(name: string, definition: MethodDefinition): OpenRpcMethod {
  return {
    name,
    ...(definition.summary === undefined ? {} : { summary: definition.summary }),
    paramStructure: "by-position",
    params: definition.params.map((schema, i) => ({
      name: `param${i}`,
      required: i < definition.required,
      schema: parameterSchema(schema),
    })),
    result: { name: "result", schema: {} },
  };
}

/** Builds the OpenRPC document of `methods`, sorted by name. */
export function buildOpenRpcDocument(
  methods: readonly (readonly [string, MethodDefinition])[],
  info: { title: string; version: string },
): OpenRpcDocument {
  const sorted = [...methods].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    openrpc: OPENRPC_VERSION,
    info,
    methods: sorted.map(([name, definition]) => describeMethod(name, definition)),
  };
}
