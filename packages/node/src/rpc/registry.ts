import { describeIssue, InvalidParamsError, MethodNotFoundError } from "@strata/protocol";
import type { z } from "zod";
import { andThen, type MaybePromise } from "./maybe-promise.js";
import { RawJson } from "./raw-json.js";
import type { RpcServices } from "./services.js";
import type { SubscriptionSink } from "./subscriptions/subscription-sink.js";

/** What a transport tells a method about the request's origin. */
export interface RpcContext {
  /** The long-lived connection the request came over (WebSocket), which can receive notifications. */
  readonly connection?: SubscriptionSink;
  /** Aborted once the client that sent the request has gone; long runs stop then. */
  readonly signal?: AbortSignal;
  /** Who per-caller caps (filters) count the request against: `ip:<client address>`. */
  readonly caller?: string;
}

type Schemas = readonly z.ZodType[];
type Outputs<S extends Schemas> = { -readonly [K in keyof S]: z.output<S[K]> };

/** One JSON-RPC method: its parameter schemas (by position), how many are required, and its handler. */
export interface MethodDefinition<S extends Schemas = Schemas> {
  readonly params: S;
  /** How many leading parameters are required; the rest may be omitted or null. */
  readonly required: number;
  readonly handler: (args: Outputs<S>, services: RpcServices, context: RpcContext) => unknown;
  /** A one-line summary of what the method does, published by `rpc.discover`. */
  readonly summary?: string;
}

/** Declares a method with typed handler arguments inferred from its parameter schemas. */
export function defineMethod<const S extends Schemas>(definition: MethodDefinition<S>): MethodDefinition {
  return definition as unknown as MethodDefinition;
}

/** The method table: name -> definition. Lookup goes through a `Map`, never through object properties. */
export class MethodRegistry {
  private readonly methods = new Map<string, MethodDefinition>();

  /** Adds every method of a namespace table. */
  register(table: Record<string, MethodDefinition>): this {
    for (const [name, definition] of Object.entries(table)) this.methods.set(name, definition);
    return this;
  }

  /** Whether the node serves `method`. */
  has(method: string): boolean {
    return this.methods.has(method);
  }

  /** The names of all registered methods. */
  names(): string[] {
    return [...this.methods.keys()];
  }

  /** Every registered method with its definition, in registration order. */
  entries(): [string, MethodDefinition][] {
    return [...this.methods.entries()];
  }

  /**
   * Validates `params` against the method's schemas and runs its handler; returns the result as JSON
   * text, at once when the handler answers at once. Bad params and unknown methods throw.
   */
  call(
    method: string,
    params: readonly unknown[],
    services: RpcServices,
    context: RpcContext = {},
  ): MaybePromise<string> {
    const definition = this.methods.get(method);
    if (!definition) throw new MethodNotFoundError(method);
    const args = decodeParams(definition, params);
    const returned = definition.handler(args as never, services, context);
    return andThen(returned, resultJson);
  }
}

function resultJson(result: unknown): string {
  if (result instanceof RawJson) return result.json;
  return result === undefined ? "null" : JSON.stringify(result);
}

function decodeParams(definition: MethodDefinition, params: readonly unknown[]): unknown[] {
  const { params: schemas, required } = definition;
  if (params.length > schemas.length) {
    throw new InvalidParamsError(`too many arguments, want at most ${schemas.length}`);
  }
  const args: unknown[] = [];
  for (let i = 0; i < schemas.length; i++) {
    const value = params[i];
    if (value === undefined || value === null) {
      if (i < required) throw new InvalidParamsError(`missing value for required argument ${i}`);
      args.push(undefined);
      continue;
    }
    const parsed = schemas[i]!.safeParse(value);
    if (!parsed.success)
      throw new InvalidParamsError(`invalid argument ${i}: ${describeIssue(parsed.error)}`);
    args.push(parsed.data);
  }
  return args;
}
