import { z } from "zod";
import { type Hex, isData, isQuantity, quantityProblem } from "./hex.js";

type Ctx = z.core.$RefinementCtx<string>;

function fail(ctx: Ctx, input: unknown, message: string): never {
  ctx.addIssue({ code: "custom", message, input });
  return z.NEVER as never;
}

function hexString(kind: string) {
  return z.string({ error: (issue) => `cannot unmarshal ${typeName(issue.input)} into ${kind}` });
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value === "string" ? "string" : `${typeof value}`;
}

function fixedData(bytes: number, kind: string) {
  return hexString(kind).transform((s, ctx): Hex => {
    if (!s.startsWith("0x") && !s.startsWith("0X")) return fail(ctx, s, "hex string without 0x prefix");
    if (!isData(s))
      return fail(ctx, s, s.length % 2 === 1 ? "hex string of odd length" : "invalid hex string");
    if (s.length !== 2 + bytes * 2) {
      return fail(ctx, s, `hex string has length ${s.length - 2}, want ${bytes * 2} for ${kind}`);
    }
    return s.toLowerCase() as Hex;
  });
}

/** A 20-byte address; normalised to lowercase. */
export const Address = fixedData(20, "common.Address");
/** A 32-byte hash; normalised to lowercase. */
export const Hash32 = fixedData(32, "common.Hash");

/** Arbitrary `0x` hex data of whole bytes; normalised to lowercase. */
export const Bytes = hexString("hexutil.Bytes").transform((s, ctx): Hex => {
  if (!s.startsWith("0x") && !s.startsWith("0X")) return fail(ctx, s, "hex string without 0x prefix");
  if (!isData(s)) return fail(ctx, s, s.length % 2 === 1 ? "hex string of odd length" : "invalid hex string");
  return s.toLowerCase() as Hex;
});

/** A strict EIP-1474 quantity of at most 256 bits, decoded to a bigint. */
export const Quantity = hexString("hexutil.Big").transform((s, ctx): bigint => {
  if (!isQuantity(s) || s.length > 66) return fail(ctx, s, quantityProblem(s));
  return BigInt(s);
});

/** A strict quantity that fits in 64 bits (block numbers, nonces, gas). */
export const Uint64 = hexString("hexutil.Uint64").transform((s, ctx): bigint => {
  if (!isQuantity(s) || s.length > 18)
    return fail(ctx, s, s.length > 18 ? "hex number > 64 bits" : quantityProblem(s));
  return BigInt(s);
});

/** The block tags of the execution API. */
export const BLOCK_TAGS = ["latest", "pending", "earliest", "safe", "finalized"] as const;
/** One of {@link BLOCK_TAGS}. */
export type BlockTagName = (typeof BLOCK_TAGS)[number];

/** A resolved block selector: a tag, a number or a hash. */
export type BlockSelector =
  | { readonly tag: BlockTagName }
  | { readonly number: bigint }
  | { readonly hash: Hex; readonly requireCanonical: boolean };

function blockNumberOrTag(s: string, ctx: Ctx): BlockSelector {
  if ((BLOCK_TAGS as readonly string[]).includes(s)) return { tag: s as BlockTagName };
  if (!s.startsWith("0x")) return fail(ctx, s, `invalid block number or tag "${s}"`);
  if (!isQuantity(s) || s.length > 18) {
    return fail(ctx, s, s.length > 18 ? "hex number > 64 bits" : quantityProblem(s));
  }
  return { number: BigInt(s) };
}

/** `BlockNumberOrTag`: a quantity or a tag. */
export const BlockNumberOrTag = hexString("BlockNumber").transform(blockNumberOrTag);

/** `BlockNumberOrTagOrHash` including the EIP-1898 object forms `{blockHash, requireCanonical}` and `{blockNumber}`. */
export const BlockSpec = z.unknown().transform((value, ctx): BlockSelector => {
  if (typeof value === "string") {
    if (value.length === 66 && isData(value, 32)) {
      return { hash: value.toLowerCase() as Hex, requireCanonical: false };
    }
    return blockNumberOrTag(value, ctx as unknown as Ctx);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    if (obj.blockHash !== undefined && obj.blockNumber !== undefined) {
      return fail(
        ctx as unknown as Ctx,
        value,
        "cannot specify both BlockHash and BlockNumber, choose one or the other",
      );
    }
    if (typeof obj.blockHash === "string" && isData(obj.blockHash, 32)) {
      return { hash: obj.blockHash.toLowerCase() as Hex, requireCanonical: obj.requireCanonical === true };
    }
    if (typeof obj.blockNumber === "string") return blockNumberOrTag(obj.blockNumber, ctx as unknown as Ctx);
  }
  return fail(ctx as unknown as Ctx, value, "invalid block number, tag or hash");
});

const AccessListEntry = z.object({ address: Address, storageKeys: z.array(Hash32) });
/** An EIP-2930 access list. */
export const AccessList = z.array(AccessListEntry);

/** An EIP-7702 authorization tuple. */
export const Authorization = z.object({
  chainId: Quantity,
  address: Address,
  nonce: Uint64,
  yParity: Quantity,
  r: Quantity,
  s: Quantity,
});

/** `GenericTransaction`: the call object of `eth_call`, `eth_estimateGas`, `eth_sendTransaction`. */
export const CallRequest = z
  .object({
    type: Quantity.optional(),
    nonce: Uint64.optional(),
    to: Address.nullable().optional(),
    from: Address.optional(),
    gas: Uint64.optional(),
    value: Quantity.optional(),
    input: Bytes.optional(),
    data: Bytes.optional(),
    gasPrice: Quantity.optional(),
    maxPriorityFeePerGas: Quantity.optional(),
    maxFeePerGas: Quantity.optional(),
    maxFeePerBlobGas: Quantity.optional(),
    accessList: AccessList.optional(),
    blobVersionedHashes: z.array(Hash32).optional(),
    chainId: Quantity.optional(),
    authorizationList: z.array(Authorization).optional(),
  })
  .check((ctx) => {
    const v = ctx.value;
    if (v.input !== undefined && v.data !== undefined && v.input !== v.data) {
      ctx.issues.push({
        code: "custom",
        message:
          'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
        input: v,
      });
    }
    if (v.gasPrice !== undefined && (v.maxFeePerGas !== undefined || v.maxPriorityFeePerGas !== undefined)) {
      ctx.issues.push({
        code: "custom",
        message: "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified",
        input: v,
      });
    }
  });
/** The decoded call object. */
export type CallRequest = z.output<typeof CallRequest>;

const TopicAlternatives = z.union([z.null(), Hash32, z.array(Hash32.nullable())]);

/** The filter object of `eth_getLogs` and `eth_newFilter`. */
export const LogFilter = z.object({
  fromBlock: BlockNumberOrTag.optional(),
  toBlock: BlockNumberOrTag.optional(),
  blockHash: Hash32.optional(),
  address: z
    .union([Address, z.array(Address)])
    .nullable()
    .optional(),
  topics: z.array(TopicAlternatives).nullable().optional(),
});
/** The decoded log filter. */
export type LogFilter = z.output<typeof LogFilter>;

/** A boolean parameter (geth accepts only JSON booleans). */
export const Bool = z.boolean({ error: (issue) => `cannot unmarshal ${typeName(issue.input)} into bool` });

/** Formats the first problem of a failed parse as a short message. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid value";
  const path = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  if (issue.code === "invalid_union") {
    const inner = issue.errors[0]?.[0];
    if (inner) return `${path}${inner.message}`;
  }
  return `${path}${issue.message}`;
}

/** A storage slot: hex of at most 32 bytes; leading zeros allowed (a quantity or a full 32-byte key). */
export const StorageSlot = hexString("common.Hash").transform((s, ctx): bigint => {
  if (!/^0x[0-9a-fA-F]{1,64}$/.test(s)) {
    return fail(ctx, s, s.length > 66 ? "hex string too long, want at most 32 bytes" : quantityProblem(s));
  }
  return BigInt(s);
});

/** A count given either as a JSON number or as a quantity string (geth's `HexOrDecimal64`). */
export const HexOrDecimal = z
  .union([z.number().int().nonnegative(), z.string()])
  .transform((v, ctx): bigint => {
    if (typeof v === "number") return BigInt(v);
    if (/^0x/i.test(v)) {
      if (!isQuantity(v) || v.length > 18) return fail(ctx as unknown as Ctx, v, quantityProblem(v));
      return BigInt(v);
    }
    if (!/^\d{1,19}$/.test(v)) return fail(ctx as unknown as Ctx, v, `invalid number "${v}"`);
    return BigInt(v);
  });
