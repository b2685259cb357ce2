import { Address, BlockSpec, Bool } from "@strata/protocol";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { rpc } from "../../e2e/clients.js";
import { startTestNode, type TestNode } from "../../testing/test-node.js";
import { createMethodRegistry } from "../methods.js";
import { buildOpenRpcDocument, describeMethod, type OpenRpcDocument } from "../openrpc.js";
import type { MethodDefinition } from "../registry.js";

/** The structure OpenRPC 1.2 requires of a document (https://spec.open-rpc.org), as JSON Schema. */
const OPENRPC_SHAPE = {
  type: "object",
  required: ["openrpc", "info", "methods"],
  properties: {
    openrpc: { type: "string", pattern: "^1\\.\\d+\\.\\d+$" },
    info: {
      type: "object",
      required: ["title", "version"],
      properties: { title: { type: "string" }, version: { type: "string" } },
    },
    methods: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "params", "result"],
        properties: {
          name: { type: "string", minLength: 1 },
          summary: { type: "string" },
          paramStructure: { enum: ["by-name", "by-position", "either"] },
          params: { type: "array", items: { $ref: "#/$defs/contentDescriptor" } },
          result: { $ref: "#/$defs/contentDescriptor" },
        },
      },
    },
  },
  $defs: {
    contentDescriptor: {
      type: "object",
      required: ["name", "schema"],
      properties: {
        name: { type: "string", minLength: 1 },
        required: { type: "boolean" },
        schema: { type: ["object", "boolean"] },
      },
    },
  },
} as const;

describe("rpc.discover", () => {
  let t: TestNode;
  let document: OpenRpcDocument;

  beforeAll(async () => {
    t = await startTestNode();
    const response = await rpc(t.url, "rpc.discover");
    expect(response.error).toBeUndefined();
    document = response.result as OpenRpcDocument;
  });

  afterAll(() => t?.stop());

  it("is an OpenRPC document whose parameter schemas are valid JSON Schema", async () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(OPENRPC_SHAPE);
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    for (const method of document.methods) {
      for (const param of method.params) {
        expect(() => ajv.compile(param.schema), `${method.name} ${param.name}`).not.toThrow();
      }
    }
    expect(document.info.version).toBe((await rpc(t.url, "web3_clientVersion")).result);
  });

  it("lists every registered method exactly once, itself included, sorted by name", () => {
    const names = document.methods.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(createMethodRegistry().names().sort());
    expect(names).toEqual([...names].sort());
    for (const name of [
      "rpc.discover",
      "eth_getProof",
      "eth_simulateV1",
      "txpool_content",
      "debug_getRawBlock",
    ]) {
      expect(names).toContain(name);
    }
  });

  it("describes positional parameters: count, required ones and accepted JSON", () => {
    const getProof = document.methods.find((m) => m.name === "eth_getProof")!;
    expect(getProof.paramStructure).toBe("by-position");
    expect(getProof.params.map((p) => p.required)).toEqual([true, true, false]);
    expect(getProof.params[0]!.schema).toMatchObject({ type: "string" });
    expect(getProof.params[1]!.schema).toMatchObject({ type: "array" });
    expect(getProof.summary).toMatch(/proof/i);
    const simulate = document.methods.find((m) => m.name === "eth_simulateV1")!;
    expect(simulate.params[0]!.schema).toMatchObject({ type: "object", required: ["blockStateCalls"] });
  });

  it("describes methods registered after the standard table, such as forwarded or chain-specific ones", async () => {
    const registry = createMethodRegistry().register({
      svc_example: {
        params: [Address, BlockSpec, Bool],
        required: 1,
        result: z.null(),
        summary: "An example.",
        handler: () => null,
      } satisfies MethodDefinition,
    });
    const listed = JSON.parse(
      await registry.call("rpc.discover", [], { clientVersion: "Strata/test" } as never),
    ) as OpenRpcDocument;
    const example = listed.methods.find((m) => m.name === "svc_example");
    expect(example).toEqual(
      describeMethod("svc_example", registry.entries().find(([n]) => n === "svc_example")![1]),
    );
    expect(example?.params.map((p) => p.required)).toEqual([true, false, false]);
    expect(listed.info.version).toBe("Strata/test");
  });

  it("renders input schemas of transforming parameters and ignores what JSON Schema cannot say", () => {
    const doc = buildOpenRpcDocument(
      [
        [
          "x_test",
          {
            params: [z.string().transform(Number), z.bigint()],
            required: 2,
            result: z.number(),
            handler: () => 1,
          } satisfies MethodDefinition,
        ],
      ],
      { title: "t", version: "v" },
    );
    expect(doc.methods[0]!.params.map((p) => p.schema)).toEqual([{ type: "string" }, {}]);
  });
});
