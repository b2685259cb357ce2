import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from "@asteasolutions/zod-to-openapi";
import { REST_ROUTES } from "./route-table.js";
import type { RestRoute } from "./routes/route.js";
import { ErrorAnswer } from "./schemas.js";

/*
 * The OpenAPI 3.1 description of REST /v1, generated from the route table: served at
 * /v1/openapi.json and rendered at /docs.
 */

const DESCRIPTION =
  "Read-only views of the chain from the indexer's PostgreSQL, plus live reads from the node. JSON, camelCase; " +
  "amounts as decimal strings; ratios (commission, uptime, APR, confidence, backtest errors) as decimal fractions, " +
  "never percentages (0.05 = 5 %); block numbers and counts as numbers; times as `timestamp` (unix seconds) and " +
  "`datetime` (ISO 8601 UTC). Lists are `{items, nextCursor}`, paged with `?limit=` (1..100, default 25) and " +
  "`?cursor=`. Errors are `{error: {code, message}}`. Same API keys (`X-API-Key`) and rate limits as JSON-RPC.";

const json = (description: string, schema: RestRoute["response"]): ResponseConfig => ({
  description,
  content: { "application/json": { schema } },
});

/** The answers a route can give: 200 with its response schema, and the errors. */
function responsesOf(route: RestRoute): Record<string, ResponseConfig> {
  return {
    "200": json("OK", route.response),
    "400": json("Malformed parameter", ErrorAnswer),
    ...(route.notFound ? { "404": json("Not found", ErrorAnswer) } : {}),
    "503": json("Index or node unavailable", ErrorAnswer),
  };
}

/** The OpenAPI 3.1 document of `routes`. */
export function openApiDocument(routes: readonly RestRoute[]) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiKey", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
  });
  for (const route of routes) {
    registry.registerPath({
      method: "get",
      path: route.path,
      summary: route.summary,
      request: { params: route.params, query: route.query },
      responses: responsesOf(route),
    });
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: { title: "Strata REST API", version: "1.0.0", description: DESCRIPTION },
    security: [{}, { apiKey: [] }],
  });
  const { paths, components } = document;
  if (paths === undefined || components?.schemas === undefined)
    throw new Error("no paths or schemas generated");
  return { ...document, paths, components: { ...components, schemas: components.schemas } };
}

/** The OpenAPI 3.1 document of the REST API. */
export const OPENAPI_DOCUMENT = openApiDocument(REST_ROUTES);
