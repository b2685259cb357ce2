import { Address, Hash32 } from "@strata/protocol";
import { z } from "zod";
import { BadRequestError } from "./rest-errors.js";

/*
 * Path and query parameters of REST /v1 as zod schemas: they validate and decode a request's
 * arguments, and the OpenAPI document describes each parameter from the same schema. A value a
 * schema refuses answers 400 with the message its `refusal` registers (`refusals` below), always
 * prefixed with the parameter's name.
 */

/** How the 400 message of a refused parameter reads, given the raw value (undefined when absent). */
type Refusal = (raw: string | undefined) => string;

/** The refusal message of each parameter schema (a zod registry: nothing of it reaches the OpenAPI document). */
const refusals = z.registry<{ readonly refusal: Refusal }>();

/** `schema` with its OpenAPI description and the 400 message for a value it refuses. */
function param<T extends z.ZodType>(schema: T, description: string, refusal?: Refusal): T {
  const described = schema.meta({ description }) as T;
  if (refusal) refusals.add(described, { refusal });
  return described;
}

/** The common refusal: `expected <what>, got "<raw>"`. */
const expecting =
  (what: string): Refusal =>
  (raw) =>
    raw === undefined ? `expected ${what}` : `expected ${what}, got "${raw}"`;

/** An integer in `min..max` (decimal digits only), `fallback` when absent. */
export function intQuery(min: number, max: number, fallback: number, description: string) {
  const digits = (raw: unknown) => (typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : raw);
  return param(
    z.preprocess(digits, z.number().int().min(min).max(max)).default(fallback),
    description,
    expecting(`an integer in ${min}..${max}`),
  );
}

/** `?limit=` of a list: 1..100, default 25. */
export const limitQuery = intQuery(1, 100, 25, "page size");

/** An optional text filter from the values of `values`. */
export function enumQuery<T extends z.ZodEnum<Record<string, string>>>(values: T, description: string) {
  return param(values.optional(), description, expecting(`one of ${values.options.join(", ")}`));
}

/** An optional free-text query argument (any text is accepted). */
export const textQuery = (description: string) => param(z.string().optional(), description);

/** A 20-byte hex address, lowercased (protocol's `Address`). */
export const addressParam = param(
  Address,
  "20-byte hex address",
  expecting("a 0x-prefixed 20-byte hex address"),
);

/** A 32-byte hex hash, lowercased (protocol's `Hash32`). */
export const hashParam = param(Hash32, "transaction hash", expecting("a 0x-prefixed 32-byte hex hash"));

const BLOCK_NUMBER = /^(0|[1-9]\d{0,17})$|^0x[0-9a-fA-F]{1,15}$/;

/** Whether `raw` is an address / a hash (as protocol's schemas take them) / a block number (decimal or 0x hex). */
export const isAddress = (raw: string) => Address.safeParse(raw).success;
export const isHash = (raw: string) => Hash32.safeParse(raw).success;
export const isBlockNumber = (raw: string) => BLOCK_NUMBER.test(raw);

/** A block number (decimal or 0x hex) as a bigint, or a block hash lowercased. */
export const blockIdParam = param(
  z.union([
    z
      .string()
      .regex(BLOCK_NUMBER)
      .transform((raw) => BigInt(raw)),
    Hash32,
  ]),
  "block number (decimal or 0x) or block hash",
  expecting("a block number or a 32-byte block hash"),
);

/** An asset symbol such as STRA, uppercased. */
export const assetParam = param(
  z
    .string()
    .transform((raw) => raw.toUpperCase())
    .pipe(z.string().regex(/^[A-Z0-9]{1,16}$/)),
  "asset symbol, e.g. STRA",
  expecting("a symbol such as STRA"),
);

/** The search term of `/v1/search`: required, surrounding blanks ignored. */
export const searchTermQuery = param(
  z.string().trim().min(1),
  "block number, hash, address or token symbol",
  () => "expected a block number, a hash, an address or a token symbol",
);

/*
 * Cursors are opaque to clients; inside they are `<block>:<index>` (or `<block>:<address>` for
 * tokens, a block number or an epoch, `<id>` for DePIN nodes): the position of the previous page's
 * last row.
 */
const cursor = <T extends z.ZodType>(schema: T) =>
  param(
    schema.optional(),
    "nextCursor of the previous page",
    (raw) => `not a cursor this API returned: "${raw ?? ""}"`,
  );

/** A `<block>:<index>` cursor (transactions, transfers). */
export const positionCursor = cursor(
  z
    .string()
    .regex(/^\d{1,18}:\d{1,9}$/)
    .transform((raw) => {
      const [block, index] = raw.split(":");
      return { block: BigInt(block!), index: Number(index) };
    }),
);

/** A block-number or epoch cursor. */
export const numberCursor = cursor(
  z
    .string()
    .regex(/^\d{1,18}$/)
    .transform((raw) => BigInt(raw)),
);

/** A token-list cursor `<block>:<address>`. */
export const tokenCursor = cursor(
  z
    .string()
    .regex(/^\d{1,18}:0x[0-9a-f]{40}$/)
    .transform((raw) => {
      const [block, address] = raw.split(":");
      return { block: BigInt(block!), address: address! };
    }),
);

/** A DePIN node id cursor (any text: ids sort as text). */
export const idCursor = cursor(z.string());

/** A percent-decoded path segment; bad percent-encoding (`%zz`, a cut `%e2%82`) is a 400 naming `name`. */
export function pathSegment(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequestError(`${name}: bad percent-encoding in "${raw}"`);
  }
}

/** Parses `raw` (each value a string, or undefined when absent) with `schema`; a refused value is a 400 naming it. */
export function parseParams<T extends z.ZodObject>(
  schema: T,
  raw: Readonly<Record<string, string | undefined>>,
): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const name = String(parsed.error.issues[0]?.path[0] ?? "");
  const field = schema.shape[name];
  const refusal = field === undefined ? undefined : refusals.get(field)?.refusal;
  throw new BadRequestError(`${name}: ${refusal ? refusal(raw[name]) : "invalid value"}`);
}
