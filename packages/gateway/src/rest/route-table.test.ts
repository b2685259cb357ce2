import type { StrataNode } from "@strata/node";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../../../test/support/test-stack.js";
import { type Activity, makeActivity } from "../../../explorer/src/e2e/chain-activity.js";
import { modulesNodeSettings } from "../../../explorer/src/e2e/modules-node.js";
import { OPENAPI_DOCUMENT } from "./openapi.js";
import { REST_ROUTES, type RestPath, type RestResponse } from "./route-table.js";

/*
 * The route table is the REST contract: every route is in the generated OpenAPI document with its
 * parameters and response schema, and a real answer of every route, from a dev stack with validators,
 * tokens, DePIN nodes and price feeds, matches both its zod schema and the document's JSON Schema.
 */

const ROOT = "openapi";
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...OPENAPI_DOCUMENT, $id: ROOT });

/** The document's JSON Schema of a route's 200 answer, as a validator. */
function documentedAnswer(path: string) {
  const pointer = `/paths/${path.replaceAll("/", "~1")}/get/responses/200/content/application~1json/schema`;
  const validate = ajv.getSchema(`${ROOT}#${pointer}`);
  if (!validate) throw new Error(`${path}: no 200 schema in the document`);
  return validate;
}

describe("the REST route table and its OpenAPI document", () => {
  it("documents every route of the table, and nothing else, with its parameters and response schema", () => {
    expect(Object.keys(OPENAPI_DOCUMENT.paths).sort()).toEqual(REST_ROUTES.map((r) => r.path).sort());
    for (const route of REST_ROUTES) {
      const operation = OPENAPI_DOCUMENT.paths[route.path]?.get;
      expect(operation?.summary, route.path).toBe(route.summary);
      const parameters = (operation?.parameters ?? []) as { name: string; in: string }[];
      expect(parameters.map((p) => `${p.in}:${p.name}`).sort(), route.path).toEqual(
        [
          ...Object.keys(route.params.shape).map((name) => `path:${name}`),
          ...Object.keys(route.query.shape).map((name) => `query:${name}`),
        ].sort(),
      );
      // The documented schema is the route's: an empty object is no answer of any route.
      expect(documentedAnswer(route.path)({}), route.path).toBe(false);
    }
  });

  it("names each response component after its schema, none of them nullable where it is defined", () => {
    const schemas = OPENAPI_DOCUMENT.components.schemas;
    // Nullable uses of a component are `anyOf: [$ref, null]`; the component itself never takes null.
    for (const [name, schema] of Object.entries(schemas)) {
      expect(JSON.stringify((schema as { type?: unknown }).type ?? null), name).not.toContain('"null"');
    }
    const block = OPENAPI_DOCUMENT.paths["/v1/blocks/{numberOrHash}"]?.get?.responses?.["200"];
    expect(JSON.stringify(block)).toContain('"$ref":"#/components/schemas/BlockDetail"');
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining(["Block", "Transaction", "Validator", "DePINNode", "PredictionView", "Error"]),
    );
  });
});

describe("real answers of every route against their schemas", () => {
  let node: StrataNode;
  let stack: TestStack;
  let activity: Activity;

  beforeAll(async () => {
    stack = await startTestStack({ node: modulesNodeSettings() });
    node = stack.node;
    activity = await makeActivity(node.rpcUrl, node.devAccounts);
    await stack.indexed(Number(node.chain.head.header.number));
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /** GETs `url` of the route `P`, expecting a 200; waits out the free tier's rate limit as a client would. */
  async function get<P extends RestPath>(url: string): Promise<RestResponse<P>> {
    let res = await fetch(stack.url + url);
    for (let retry = 0; res.status === 429 && retry < 3; retry++) {
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get("retry-after")) * 1000));
      res = await fetch(stack.url + url);
    }
    expect(res.status, url).toBe(200);
    return (await res.json()) as RestResponse<P>;
  }

  /** One request per route; the compiler asks for a new route's. */
  async function samples(): Promise<Record<RestPath, string>> {
    // The DePIN demo registers its devices once the node runs; the indexer takes them in after.
    const depinNodes = async () => (await get<"/v1/depin/nodes">("/v1/depin/nodes")).items.length;
    await expect.poll(depinNodes, { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
    const validators = await get<"/v1/validators">("/v1/validators");
    const validator = validators.items[0]!.address;
    const blockNumber = (await get<"/v1/transactions/{hash}">(`/v1/transactions/${activity.tokenTransferTx}`))
      .blockNumber;
    return {
      "/v1/chain": "/v1/chain",
      "/v1/blocks": "/v1/blocks?limit=5",
      "/v1/blocks/{numberOrHash}": `/v1/blocks/${blockNumber}`,
      "/v1/transactions": "/v1/transactions?limit=5",
      "/v1/transactions/{hash}": `/v1/transactions/${activity.tokenTransferTx}`,
      "/v1/addresses/{address}": `/v1/addresses/${activity.token}`,
      "/v1/addresses/{address}/transactions": `/v1/addresses/${activity.sender}/transactions`,
      "/v1/addresses/{address}/token-transfers": `/v1/addresses/${activity.recipient}/token-transfers`,
      "/v1/tokens": "/v1/tokens",
      "/v1/tokens/{address}": `/v1/tokens/${activity.token}`,
      "/v1/tokens/{address}/transfers": `/v1/tokens/${activity.token}/transfers`,
      "/v1/validators": "/v1/validators",
      "/v1/validators/{address}/history": `/v1/validators/${validator}/history`,
      "/v1/staking": "/v1/staking",
      "/v1/staking/{address}": `/v1/staking/${validator}`,
      "/v1/depin/nodes": "/v1/depin/nodes",
      "/v1/predictions": "/v1/predictions",
      "/v1/predictions/{asset}": "/v1/predictions/BTC?horizon=7",
      "/v1/search": `/v1/search?q=${activity.token}`,
      "/v1/stats/blocks": "/v1/stats/blocks?count=5",
    };
  }

  it("answers every route with JSON its response schema and the document describe, field for field", async () => {
    const urls = await samples();
    for (const route of REST_ROUTES) {
      const url = urls[route.path];
      const body: unknown = await get(url);
      // Parsing drops what the schema does not name: an undocumented field shows up as a difference.
      expect(route.response.parse(body), url).toEqual(body);
      const documented = documentedAnswer(route.path);
      expect(documented(body) ? [] : documented.errors, url).toEqual([]);
      // A list's items are checked only when there are some.
      const items = (body as { items?: unknown[] }).items ?? (Array.isArray(body) ? body : [body]);
      expect(items.length, url).toBeGreaterThan(0);
    }
  });

  it("answers the richest shapes in full: a prediction with its backtest, a token at an address, logs decoded", async () => {
    const prediction = await get<"/v1/predictions/{asset}">("/v1/predictions/BTC?horizon=7");
    expect(prediction.prediction?.quantiles?.["50"]).toBe(prediction.prediction?.predictedPrice);
    expect(prediction.backtest).not.toBeNull();
    const address = await get<"/v1/addresses/{address}">(`/v1/addresses/${activity.token}`);
    expect(address).toMatchObject({ isContract: true, token: { address: activity.token.toLowerCase() } });
    const tx = await get<"/v1/transactions/{hash}">(`/v1/transactions/${activity.tokenTransferTx}`);
    expect(tx.logs[0]?.decoded?.event).toBe("Transfer");
  });
});
