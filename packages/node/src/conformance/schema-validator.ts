import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type AnySchema, type ErrorObject, type ValidateFunction } from "ajv";
import { parse } from "yaml";

/**
 * The Ethereum execution-apis specification copied next to this file: `schemas/*.yaml` hold JSON-Schema
 * components keyed by name at the top level, `eth/*.yaml` hold lists of method definitions whose
 * `result.schema` refers to those components as `#/components/schemas/<Name>`.
 */
const SPEC_DIR = fileURLToPath(new URL("./execution-apis/", import.meta.url));

/** The `$id` of the single document that gathers every component and method result schema. */
const ROOT_ID = "execution-apis";

interface MethodDefinition {
  readonly name: string;
  readonly result?: { readonly schema?: AnySchema };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function yamlFiles(folder: string): string[] {
  const dir = join(SPEC_DIR, folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => join(dir, name));
}

/** Every component schema of `schemas/*.yaml`, by name; a name defined twice is an error. */
function loadComponents(): Record<string, AnySchema> {
  const components: Record<string, AnySchema> = {};
  for (const file of yamlFiles("schemas")) {
    const doc: unknown = parse(readFileSync(file, "utf8"));
    if (!isRecord(doc)) throw new Error(`${file}: expected a mapping of schema names`);
    for (const [name, schema] of Object.entries(doc)) {
      if (name in components) throw new Error(`${file}: schema ${name} is defined twice`);
      components[name] = schema as AnySchema;
    }
  }
  return components;
}

/** The folders of method definitions copied from the specification. */
const METHOD_FOLDERS = ["eth", "debug", "txpool"] as const;

/** The result schema of every method of `eth/*.yaml`, `debug/*.yaml` and `txpool/*.yaml`, by method name. */
function loadMethodResults(): Record<string, AnySchema> {
  const results: Record<string, AnySchema> = {};
  for (const file of METHOD_FOLDERS.flatMap((folder) => yamlFiles(folder))) {
    const doc: unknown = parse(readFileSync(file, "utf8"));
    if (!Array.isArray(doc)) throw new Error(`${file}: expected a list of methods`);
    for (const method of doc as MethodDefinition[]) {
      const schema = method.result?.schema;
      if (schema !== undefined) results[method.name] = schema;
    }
  }
  return results;
}

const components = loadComponents();
const methodResults = loadMethodResults();

const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, logger: false });
// One document so that `#/components/schemas/<Name>` resolves from components and method results alike.
ajv.addSchema({ $id: ROOT_ID, components: { schemas: components, methodResults } });

const compiled = new Map<string, ValidateFunction>();

function validatorAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.getSchema(`${ROOT_ID}#${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    compiled.set(pointer, validate);
  }
  return validate;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === "" ? "(result)" : error.instancePath;
  const extra =
    error.keyword === "additionalProperties"
      ? ` '${String(error.params.additionalProperty)}'`
      : error.keyword === "type" || error.keyword === "pattern"
        ? `, got ${JSON.stringify(error.data)}`
        : "";
  return `${where} ${error.message ?? error.keyword}${extra} [${error.schemaPath}]`;
}

function run(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describe);
}

/** The names of the component schemas of the copied specification (`Block`, `ReceiptInfo`, `uint`, ...). */
export function schemaNames(): string[] {
  return Object.keys(components).sort();
}

/** Whether the copied method definitions (`eth/`, `debug/`, `txpool/`) define a result schema for `method`. */
export function hasMethodResultSchema(method: string): boolean {
  return Object.hasOwn(methodResults, method);
}

/**
 * Validates `value` against the component schema `name` of the execution-apis specification
 * (for example `Block`, `TransactionInfo`, `ReceiptInfo`, `Log`, `uint`).
 * Returns one line per violation (JSON pointer into `value`, message, schema path); empty when valid.
 * Throws if the specification has no schema of that name.
 */
export function validateSchema(name: string, value: unknown): string[] {
  if (!Object.hasOwn(components, name)) throw new Error(`unknown execution-apis schema: ${name}`);
  return run(validatorAt(`/components/schemas/${name}`), value);
}

/**
 * Validates `value` as the `result` of the JSON-RPC method `method` against that method's
 * `result.schema` in the execution-apis specification (for example `eth_getBlockByNumber`).
 * Returns one line per violation (JSON pointer into `value`, message, schema path); empty when valid.
 * Throws if the specification does not define the method (see {@link hasMethodResultSchema}).
 */
export function validateMethodResult(method: string, value: unknown): string[] {
  if (!hasMethodResultSchema(method)) throw new Error(`no execution-apis result schema for ${method}`);
  return run(validatorAt(`/components/methodResults/${method}`), value);
}
