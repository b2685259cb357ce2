import {
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
} from "viem";
import { mnemonicToAccount } from "viem/accounts";

/** The dev network's mnemonic. */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";

/** The i-th dev account as a viem local account. */
export function devAccount(index: number) {
  return mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });
}

/** A viem chain definition of the dev network served at `url`. */
export function devChain(url: string): Chain {
  return defineChain({
    id: 1337,
    name: "Strata dev",
    nativeCurrency: { name: "Strata", symbol: "STRA", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

/** Public, wallet (dev account `index`) and test clients against a node. */
export function viemClients(url: string, index = 0) {
  const chain = devChain(url);
  const transport = http(url);
  return {
    chain,
    publicClient: createPublicClient({ chain, transport, pollingInterval: 20 }),
    wallet: createWalletClient({ chain, transport, account: devAccount(index) }),
    testClient: createTestClient({ chain, transport, mode: "anvil" }),
  };
}

/** Posts one raw JSON-RPC body and returns the HTTP status and the parsed body (or text). */
export async function rawRpc(
  url: string,
  body: string,
  headers: Record<string, string> = { "content-type": "application/json" },
  method = "POST",
): Promise<{ status: number; body: unknown; text: string }> {
  const response = await fetch(url, { method, headers, ...(method === "GET" ? {} : { body }) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, text };
}

/** Calls one method and returns the JSON-RPC response object. */
export async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const { body } = await rawRpc(url, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  return body as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
}
