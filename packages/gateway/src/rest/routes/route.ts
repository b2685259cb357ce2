import { z } from "zod";
import type { RestContext } from "../context.js";

/** The names of the `{placeholders}` of an OpenAPI path template. */
export type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/** Schemas of a route's path parameters or query arguments, by name. */
export type ParamShape = Record<string, z.ZodType>;

/** The decoded arguments a handler receives. */
export interface RouteArgs<Params extends ParamShape, Query extends ParamShape> {
  readonly params: z.output<z.ZodObject<Params>>;
  readonly query: z.output<z.ZodObject<Query>>;
}

/** One REST route: its path template, argument and response schemas, and its handler. */
export interface RestRoute<
  Path extends string = string,
  Params extends ParamShape = ParamShape,
  Query extends ParamShape = ParamShape,
  Response extends z.ZodType = z.ZodType,
> {
  /** OpenAPI path template, e.g. `/v1/blocks/{numberOrHash}`. */
  readonly path: Path;
  /** One line for the OpenAPI document. */
  readonly summary: string;
  /** One schema per placeholder of `path`. */
  readonly params: z.ZodObject<Params>;
  readonly query: z.ZodObject<Query>;
  /** The shape of a 200 answer. */
  readonly response: Response;
  /** Whether the route answers 404 for a resource that does not exist. */
  readonly notFound: boolean;
  /** The raw (still percent-encoded) path parameters when `pathname` is this route's, else undefined. */
  match(pathname: string): Record<string, string> | undefined;
  /** Answers a request whose arguments passed the schemas. */
  handle(ctx: RestContext, args: RouteArgs<Params, Query>): Promise<z.input<Response>>;
}

/** What {@link defineRoute} takes; `params` names exactly the placeholders of `path`. */
export interface RouteDefinition<
  Path extends string,
  Params extends ParamShape,
  Query extends ParamShape,
  Response extends z.ZodType,
> {
  readonly path: Path;
  readonly summary: string;
  readonly params?: Params;
  readonly query?: Query;
  readonly response: Response;
  readonly notFound?: boolean;
  handle(ctx: RestContext, args: RouteArgs<Params, Query>): Promise<z.input<Response>>;
}

/**
 * A route of the table: the schemas and handler of `definition`, and a matcher for its path. The
 * handler's answer is type-checked against the response schema; a path whose placeholders and
 * `params` differ is refused when the table loads.
 */
export function defineRoute<
  const Path extends string,
  Response extends z.ZodType,
  Params extends Record<PathParamNames<Path>, z.ZodType> = Record<PathParamNames<Path>, never>,
  Query extends ParamShape = Record<never, never>,
>(definition: RouteDefinition<Path, Params, Query, Response>): RestRoute<Path, Params, Query, Response> {
  const names = [...definition.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const params = (definition.params ?? {}) as Params;
  const declared = Object.keys(params);
  if (declared.length !== names.length || names.some((name) => !declared.includes(name))) {
    throw new Error(`${definition.path}: its path parameters and their schemas differ`);
  }
  const pattern = new RegExp(`^${definition.path.replace(/\{\w+\}/g, "([^/]+)")}$`);
  return {
    path: definition.path,
    summary: definition.summary,
    params: z.object(params),
    query: z.object((definition.query ?? {}) as Query),
    response: definition.response,
    notFound: definition.notFound ?? false,
    match(pathname) {
      const found = pattern.exec(pathname);
      return found ? Object.fromEntries(names.map((name, i) => [name, found[i + 1]!])) : undefined;
    },
    handle: (ctx, args) => definition.handle(ctx, args),
  };
}
