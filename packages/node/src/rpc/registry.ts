import {
  type DecodedParams,
  decodeParams,
  MethodNotFoundError,
  type MethodResult,
  type MethodSpec,
  NODE_METHODS,
  type NodeMethodName,
} from "@strata/protocol";
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

/** What a handler of `M` may answer: its declared result, or that result already serialized, now or later. */
export type Answer<M extends NodeMethodName> = MaybePromise<MethodResult<M> | RawJson<MethodResult<M>>>;

/** Serves method `M`: its decoded parameters in, its declared result out (checked at compile time only). */
export type Handler<M extends NodeMethodName> = (
  args: DecodedParams<M>,
  services: RpcServices,
  context: RpcContext,
) => Answer<M>;

/** One JSON-RPC method as the registry runs it: its entry of the wire table and its handler. */
export interface MethodDefinition extends MethodSpec {
  readonly handler: (args: never, services: RpcServices, context: RpcContext) => unknown;
}

/** Handlers of some of the table's methods, each typed by its entry. */
export type Handlers = { readonly [M in NodeMethodName]?: Handler<M> };

/**
 * Implements methods of the wire table (`@strata/protocol`'s `NODE_METHODS`): parameters, required
 * count, result type and summary come from the table; a handler gets the decoded parameters and must
 * answer the declared result type.
 */
export function defineMethods(handlers: Handlers): Record<string, MethodDefinition> {
  const table: Record<string, MethodDefinition> = {};
  for (const [name, handler] of Object.entries(handlers)) {
    table[name] = {
      ...NODE_METHODS[name as NodeMethodName],
      handler: handler as MethodDefinition["handler"],
    };
  }
  return table;
}

/** The method table: name -> definition. Lookup goes through a `Map`, never through object properties. */
export class MethodRegistry {
  private readonly methods = new Map<string, MethodDefinition>();

  /** Adds every method of a namespace table; a method registered twice is a programming error. */
  register(table: Record<string, MethodDefinition>): this {
    for (const [name, definition] of Object.entries(table)) {
      if (this.methods.has(name)) throw new Error(`method ${name} is registered twice`);
      this.methods.set(name, definition);
    }
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
