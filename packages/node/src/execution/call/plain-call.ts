import type { Block } from "@ethereumjs/block";
import type { ExecResult } from "@ethereumjs/evm";
import {
  Account,
  Address,
  bytesToUnprefixedHex,
  createZeroAddress,
  equalsBytes,
  hexToBytes,
  KECCAK256_NULL,
} from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import type { CallRequest } from "@strata/protocol";

/**
 * EIPs that change what happens around a transaction's message (multidimensional gas, recipient
 * and floor charges, transfer logs, block access lists, binary trees, calldata floor tokens): under
 * any of them every call takes `runTx`.
 */
const MESSAGE_CHANGING_EIPS = [2780, 7708, 7864, 7928, 7976, 7981, 8037];
const EVM_EVENTS = ["beforeMessage", "afterMessage", "step", "newContract"] as const;

/**
 * Runs a plain read call (a `to`, no value, no fee fields, no access, authorization or blob list,
 * from an account without code) the way `runTx` runs it, without building a transaction: the
 * intrinsic gas (calldata included) comes off the gas limit, the sender, recipient, precompiles and
 * coinbase are warm (EIP-2929, EIP-3651), the sender's nonce goes up by one, and the message runs at
 * depth 0 with a gas price of zero. Everything the call's code can observe (gas left, warm and cold
 * access costs, the sender's account, transient storage) is as under `runTx`; the gas refund and fee
 * settlement that follow the message are skipped, as a call's return data does not depend on them.
 * Returns undefined, having changed nothing, for any other call or one `runTx` would refuse (gas
 * below the intrinsic cost or the calldata floor, a sender with code): `runTx` then takes it.
 */
export async function runPlainCall(
  vm: VM,
  request: CallRequest,
  block: Block,
  gasLimit: bigint,
): Promise<ExecResult | undefined> {
  if (!isPlainCall(request)) return undefined;
  const { common, evm } = vm;
  if (MESSAGE_CHANGING_EIPS.some((eip) => common.isActivatedEIP(eip))) return undefined;
  if (vm.events.listenerCount("beforeTx") + vm.events.listenerCount("afterTx") > 0) return undefined;
  if (EVM_EVENTS.some((name) => (evm.events?.listenerCount(name) ?? 0) > 0)) return undefined;

  const data = hexToBytes(request.input ?? request.data ?? "0x");
  let zeros = 0;
  for (const byte of data) if (byte === 0) zeros++;
  const nonZeros = data.length - zeros;
  const txGas = common.param("txGas");
  const intrinsic =
    txGas +
    BigInt(zeros) * common.param("txDataZeroGas") +
    BigInt(nonZeros) * common.param("txDataNonZeroGas");
  const floor = common.isActivatedEIP(7623)
    ? txGas + common.param("totalCostFloorPerToken") * BigInt(zeros + nonZeros * 4)
    : 0n;
  if (gasLimit < intrinsic || gasLimit < floor) return undefined;

  const caller = request.from ? new Address(hexToBytes(request.from)) : createZeroAddress();
  const sender = (await evm.stateManager.getAccount(caller)) ?? new Account();
  // A sender with code (deployed or delegated) is for runTx to accept or refuse (EIP-3607, EIP-7702).
  if (!equalsBytes(sender.codeHash, KECCAK256_NULL)) return undefined;
  const to = new Address(hexToBytes(request.to as `0x${string}`));

  const { journal } = evm;
  await journal.cleanup();
  if (common.isActivatedEIP(2929)) {
    for (const address of evm.precompiles.keys()) journal.addAlwaysWarmAddress(address);
    journal.addAlwaysWarmAddress(caller.toString());
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(to.bytes));
    if (common.isActivatedEIP(3651))
      journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes));
  }
  try {
    sender.nonce += 1n;
    await journal.putAccount(caller, sender);
    const result = await evm.runCall({
      block,
      gasPrice: 0n,
      caller,
      gasLimit: gasLimit - intrinsic,
      to,
      value: 0n,
      data,
      skipNonceIncrement: true,
    });
    return result.execResult;
  } finally {
    if (common.isActivatedEIP(2929)) journal.cleanJournal();
  }
}

function isPlainCall(request: CallRequest): boolean {
  return (
    typeof request.to === "string" &&
    (request.value ?? 0n) === 0n &&
    request.gasPrice === undefined &&
    request.maxFeePerGas === undefined &&
    request.maxPriorityFeePerGas === undefined &&
    request.maxFeePerBlobGas === undefined &&
    request.type === undefined &&
    !request.accessList?.length &&
    !request.authorizationList?.length &&
    !request.blobVersionedHashes?.length
  );
}
