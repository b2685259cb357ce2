import type { RestContext } from "../context.js";

/** One REST route: a path pattern (captures are the path parameters) and its handler. */
export interface Route {
  readonly pattern: RegExp;
  handle(ctx: RestContext, url: URL, params: readonly string[]): Promise<unknown>;
}
