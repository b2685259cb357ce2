import type { Block } from "@ethereumjs/block";
import { bytesToHex } from "@ethereumjs/util";
import {
  type Abi,
  type Address,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type ContractFunctionReturnType,
  decodeFunctionResult,
  encodeFunctionData,
} from "viem";
import { UnavailableResourceError } from "../errors/domain-errors.js";
import type { CallExecutor } from "../execution/call/call-executor.js";

/** A view function of a contract, read against the state after a given block. */
export interface ContractRead<TAbi extends Abi, TName extends ContractFunctionName<TAbi, "view" | "pure">> {
  readonly address: Address;
  readonly abi: TAbi;
  readonly functionName: TName;
  readonly args?: ContractFunctionArgs<TAbi, "view" | "pure", TName>;
}

/**
 * Calls a view function of a contract with a read-only EVM call on top of `block` and decodes its
 * result with the ABI. A revert throws the executor's RevertError; a contract without code (a
 * network without that system contract) throws {@link UnavailableResourceError}.
 */
export async function readContract<
  const TAbi extends Abi,
  TName extends ContractFunctionName<TAbi, "view" | "pure">,
>(
  calls: CallExecutor,
  block: Block,
  read: ContractRead<TAbi, TName>,
): Promise<ContractFunctionReturnType<TAbi, "view" | "pure", TName>> {
  const data = encodeFunctionData({
    abi: read.abi,
    functionName: read.functionName,
    args: read.args,
  } as never);
  const ret = await calls.call({ to: read.address, input: data }, block);
  if (ret.length === 0) throw new UnavailableResourceError(`no contract at ${read.address} on this network`);
  return decodeFunctionResult({
    abi: read.abi,
    functionName: read.functionName,
    data: bytesToHex(ret),
  } as never) as ContractFunctionReturnType<TAbi, "view" | "pure", TName>;
}
