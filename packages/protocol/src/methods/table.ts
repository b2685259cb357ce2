import type { z } from "zod";
import { apiMethods } from "./api.js";
import { debugMethods } from "./debug.js";
import { devMethods } from "./dev.js";
import { ethMethods } from "./eth.js";
import { netMethods, testPeerMethods, web3Methods } from "./net.js";
import { otsMethods } from "./ots.js";
import { rpcMethods } from "./rpc.js";
import { svcMethods } from "./svc.js";
import { testingMethods } from "./testing.js";
import { txpoolMethods } from "./txpool.js";

/** Every method a Strata node serves: name -> params, required count, result, summary. */
export const NODE_METHODS = {
  ...ethMethods,
  ...netMethods,
  ...web3Methods,
  ...testPeerMethods,
  ...debugMethods,
  ...txpoolMethods,
  ...otsMethods,
  ...devMethods,
  ...testingMethods,
  ...svcMethods,
  ...rpcMethods,
};

/** The whole wire contract: the node's methods and the gateway's `api_` methods. */
export const WIRE_METHODS = { ...NODE_METHODS, ...apiMethods };

/** The table's type. */
export type WireMethods = typeof WIRE_METHODS;
/** A method a node serves. */
export type NodeMethodName = keyof typeof NODE_METHODS;
/** A method of the wire contract (node or gateway). */
export type MethodName = keyof WireMethods;

type Schemas<M extends MethodName> = WireMethods[M]["params"];

/**
 * The arguments a handler receives: each parameter decoded by its schema. Optional ones (past the
 * required count) arrive decoded when given; the type, like the registry before the table, leaves
 * their absence to the handler's `??`.
 */
export type DecodedParams<M extends MethodName> = Decoded<Schemas<M>>;
type Decoded<S extends readonly unknown[]> = { -readonly [K in keyof S]: z.output<S[K] & z.ZodType> };

type WireInputs<S extends readonly unknown[]> = { [K in keyof S]: z.input<S[K] & z.ZodType> };
type Optional<T extends readonly unknown[]> = T extends readonly [infer F, ...infer R]
  ? [(F | null)?, ...Optional<R>]
  : [];
type RequiredThenOptional<
  T extends readonly unknown[],
  N extends number,
  Head extends unknown[] = [],
> = Head["length"] extends N
  ? [...Head, ...Optional<T>]
  : T extends readonly [infer F, ...infer R]
    ? RequiredThenOptional<R, N, [...Head, F]>
    : Head;

/** What a client sends: each parameter as JSON (hex text, tags, objects); trailing optional ones may be left out. */
export type WireParams<M extends MethodName> = RequiredThenOptional<
  WireInputs<Schemas<M>>,
  WireMethods[M]["required"]
>;

/** What a method answers, as JSON. */
export type MethodResult<M extends MethodName> = z.output<WireMethods[M]["result"]>;
