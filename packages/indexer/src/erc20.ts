import { RpcError, rpcRequest } from "@strata/protocol";
import { decodeFunctionResult, encodeFunctionData, erc20Abi, hexToString, parseAbi, trim } from "viem";
import type { RpcClient } from "./rpc-client.js";

/** `keccak256("Transfer(address,address,uint256)")`: topic 0 of ERC-20 (and ERC-721) transfers. */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** ERC-20 metadata a contract answered. */
export interface TokenMetadata {
  readonly name: string | null;
  readonly symbol: string | null;
  readonly decimals: number;
  readonly totalSupply: bigint | null;
}

/** A decoded ERC-20 transfer. */
export interface DecodedTransfer {
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
}

// Old tokens (MKR and friends) return bytes32 names and symbols.
const bytes32Abi = parseAbi([
  "function name() view returns (bytes32)",
  "function symbol() view returns (bytes32)",
]);

/**
 * Decodes an ERC-20 `Transfer` log: three topics (ERC-721 has four) and a 32-byte amount;
 * `undefined` for anything else.
 */
export function decodeTransfer(topics: readonly string[], data: string): DecodedTransfer | undefined {
  if (topics.length !== 3 || topics[0] !== TRANSFER_TOPIC || data.length !== 66) return undefined;
  return { from: `0x${topics[1]!.slice(26)}`, to: `0x${topics[2]!.slice(26)}`, value: BigInt(data) };
}

function decodeText(fn: "name" | "symbol", data: string | undefined): string | null {
  if (data === undefined || data === "0x") return null;
  try {
    return decodeFunctionResult({ abi: erc20Abi, functionName: fn, data: data as `0x${string}` });
  } catch {
    try {
      const raw = decodeFunctionResult({ abi: bytes32Abi, functionName: fn, data: data as `0x${string}` });
      return hexToString(trim(raw, { dir: "right" }));
    } catch {
      return null;
    }
  }
}

/**
 * Reads `decimals`, `name`, `symbol` and `totalSupply` of `address` at `blockTag` with `eth_call`;
 * `undefined` when the contract does not answer `decimals()` and `totalSupply()` as an ERC-20 does.
 */
export async function probeErc20(
  rpc: RpcClient,
  address: string,
  blockTag: string,
): Promise<TokenMetadata | undefined> {
  const call = (functionName: "decimals" | "name" | "symbol" | "totalSupply") =>
    rpcRequest(
      "eth_call",
      { to: address, data: encodeFunctionData({ abi: erc20Abi, functionName }) },
      blockTag,
    );
  const calls = [call("decimals"), call("totalSupply"), call("name"), call("symbol")];
  const answers = await Promise.all(
    calls.map((c) =>
      rpc.call(c.method, c.params).catch((error: unknown) => {
        if (error instanceof RpcError) return undefined;
        throw error;
      }),
    ),
  );
  const [decimalsData, supplyData, nameData, symbolData] = answers;
  try {
    if (decimalsData === undefined || supplyData === undefined) return undefined;
    const decimals = decodeFunctionResult({
      abi: erc20Abi,
      functionName: "decimals",
      data: decimalsData as `0x${string}`,
    });
    const totalSupply = decodeFunctionResult({
      abi: erc20Abi,
      functionName: "totalSupply",
      data: supplyData as `0x${string}`,
    });
    if (decimals > 255) return undefined;
    return {
      decimals,
      totalSupply,
      name: decodeText("name", nameData),
      symbol: decodeText("symbol", symbolData),
    };
  } catch {
    return undefined;
  }
}
