import {
  type ApiBalance,
  type ApiChainInfo,
  apiMethods,
  type DecodedParams,
  decodeParams,
  type Hex,
  MethodNotFoundError,
  type MethodResult,
  NATIVE_CURRENCY,
  rpcRequest,
} from "@strata/protocol";
import { KNOWN_NETWORKS } from "../config.js";
import type { UpstreamPool } from "../upstream/upstream-pool.js";
import { callUpstream, unwrap } from "../upstream/upstream-rpc.js";

/** The gateway's own methods (`api_*`). */
type ApiMethodName = keyof typeof apiMethods;

/** Serves one `api_*` method: its decoded arguments (and the raw ones, forwarded as sent) in, its declared result out. */
type ApiHandler<M extends ApiMethodName> = (
  pool: UpstreamPool,
  args: DecodedParams<M>,
  raw: readonly unknown[],
) => Promise<MethodResult<M>>;

/** True for the methods the gateway answers itself. */
export function isApiMethod(method: string): boolean {
  return method.startsWith("api_");
}

/**
 * Runs an `api_*` method: params decoded by the wire table's schemas (-32602 naming the argument, as
 * the node does); throws an `RpcError` for bad params, unknown methods or node errors.
 */
export async function callApiMethod(
  pool: UpstreamPool,
  method: string,
  params: readonly unknown[],
): Promise<unknown> {
  if (!Object.hasOwn(apiMethods, method)) throw new MethodNotFoundError(method);
  const name = method as ApiMethodName;
  const handler = API_HANDLERS[name] as ApiHandler<ApiMethodName>;
  return handler(pool, decodeParams(apiMethods[name], params) as never, params);
}

/** `api_getBalance([address, blockTag?])`: the balance in wei and in STRA at one block. */
const getBalance: ApiHandler<"api_getBalance"> = async (pool, [address], raw): Promise<ApiBalance> => {
  const tag = (raw[1] ?? "latest") as string;
  const [balance, header] = await callUpstream(pool, [
    rpcRequest("eth_getBalance", address, tag),
    rpcRequest("eth_getBlockByNumber", tag, false),
  ]);
  const wei = unwrap(balance);
  const head = unwrap(header);
  return {
    address,
    balance: wei,
    formatted: formatUnits(BigInt(wei), NATIVE_CURRENCY.decimals),
    symbol: NATIVE_CURRENCY.symbol,
    blockNumber: head?.number ?? tag,
  };
};

/** `api_getChainInfo([])`: chain identity, head and node status in one call. */
const getChainInfo: ApiHandler<"api_getChainInfo"> = async (pool): Promise<ApiChainInfo> => {
  const [chainId, head, clientVersion, syncing, validators] = await callUpstream(pool, [
    rpcRequest("eth_chainId"),
    rpcRequest("eth_getBlockByNumber", "latest", false),
    rpcRequest("web3_clientVersion"),
    rpcRequest("eth_syncing"),
    rpcRequest("svc_getValidators"),
  ]);
  const id = Number.parseInt(unwrap(chainId), 16);
  // `latest` always names a sealed block.
  const header = unwrap(head)!;
  const known = (KNOWN_NETWORKS as Record<number, { name: string; blockTimeSeconds: number }>)[id];
  return {
    chainId: id,
    chainIdHex: `0x${id.toString(16)}`,
    network: known?.name ?? `chain-${id}`,
    nativeCurrency: NATIVE_CURRENCY,
    blockNumber: header.number,
    blockHash: header.hash as Hex,
    blockTime: known?.blockTimeSeconds ?? 0,
    baseFeePerGas: header.baseFeePerGas ?? null,
    validatorCount: Array.isArray(validators) ? validators.length : null,
    clientVersion: unwrap(clientVersion),
    syncing: unwrap(syncing),
  };
};

const API_HANDLERS: { readonly [M in ApiMethodName]: ApiHandler<M> } = {
  api_getBalance: getBalance,
  api_getChainInfo: getChainInfo,
};

/** `wei` as a decimal string of whole units, without trailing zeros (`1.5`, `10000`). */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const fraction = (abs % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
