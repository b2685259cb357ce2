import type { Block } from "@ethereumjs/block";
import { Hardfork } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, type Address, equalsBytes, KECCAK256_NULL } from "@ethereumjs/util";
import { Bloom, type RunTxResult, type VM } from "@ethereumjs/vm";

/**
 * EIPs that change what a plain value transfer does or records (transfer logs, block access lists,
 * multidimensional gas, binary trees): with any of them active every transaction takes `runTx`.
 */
const TRANSFER_CHANGING_EIPS = [7708, 7778, 7864, 7928, 8037];
const EVM_EVENTS = ["beforeMessage", "afterMessage", "step", "newContract"] as const;

/**
 * Executes a plain value transfer (no data, no access list, to an account without code that is not
 * a precompile, from an account without code) as `runTx` would, without the EVM: nonce, up-front gas
 * charge and refund, the transfer, the priority fee to the coinbase, and the removal of touched empty
 * accounts (EIP-161). A transfer costs exactly the base 21,000 gas and cannot fail once admitted, so
 * its outcome needs no interpreter. Returns undefined, having changed nothing, for any transaction
 * outside that case or that `runTx` would refuse (wrong nonce, funds, fees or gas): `runTx` then
 * executes it, or refuses it with its own error.
 */
export async function runValueTransfer(
  vm: VM,
  tx: TypedTransaction,
  block: Block,
  blockGasUsed: bigint,
): Promise<RunTxResult | undefined> {
  const common = vm.common;
  if (tx.type > 2 || tx.to === undefined || tx.data.length > 0) return undefined;
  if ("accessList" in tx && tx.accessList.length > 0) return undefined;
  if (!common.isActivatedEIP(1559) || !common.gteHardfork(Hardfork.Byzantium)) return undefined;
  if (TRANSFER_CHANGING_EIPS.some((eip) => common.isActivatedEIP(eip))) return undefined;
  if (vm.events.listenerCount("beforeTx") + vm.events.listenerCount("afterTx") > 0) return undefined;
  if (EVM_EVENTS.some((name) => (vm.evm.events?.listenerCount(name) ?? 0) > 0)) return undefined;
  const to = tx.to;
  // An EVM that cannot tell its precompiles gets every transaction.
  if (!vm.evm.getPrecompile || vm.evm.getPrecompile(to) !== undefined) return undefined;

  const gasUsed = common.param("txGas");
  if (tx.gasLimit < gasUsed) return undefined;
  if (common.isActivatedEIP(7825) && tx.gasLimit > common.param("maxTransactionGasLimit")) return undefined;
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const maxFee = "maxFeePerGas" in tx ? tx.maxFeePerGas : tx.gasPrice;
  const maxTip = "maxPriorityFeePerGas" in tx ? tx.maxPriorityFeePerGas : tx.gasPrice;
  if (maxFee < baseFee) return undefined;
  const gasPrice = maxFee < baseFee + maxTip ? maxFee : baseFee + maxTip;

  const state = vm.stateManager;
  const senderAddress = tx.getSenderAddress();
  const sender = await state.getAccount(senderAddress);
  if (!sender || !equalsBytes(sender.codeHash, KECCAK256_NULL) || sender.nonce !== tx.nonce) return undefined;
  if (sender.balance < tx.gasLimit * maxFee + tx.value) return undefined;
  const recipient = await state.getAccount(to);
  if (recipient && !equalsBytes(recipient.codeHash, KECCAK256_NULL)) return undefined;

  const fee = gasUsed * gasPrice;
  const minerValue = gasUsed * (gasPrice - baseFee);
  sender.nonce += 1n;
  sender.balance -= fee + tx.value;
  await state.putAccount(senderAddress, sender);
  await credit(vm, to, tx.value);
  await credit(vm, block.header.coinbase, minerValue);

  const bloom = new Bloom(undefined, common);
  return {
    execResult: { executionGasUsed: 0n, returnValue: new Uint8Array(), logs: [] },
    bloom,
    amountSpent: fee,
    totalGasSpent: gasUsed,
    blockGasSpent: gasUsed,
    gasRefund: 0n,
    minerValue,
    receipt: {
      status: 1,
      cumulativeBlockGasUsed: blockGasUsed + gasUsed,
      bitvector: bloom.bitvector,
      logs: [],
    },
  };
}

/** Adds `amount` to an account; a touched account left empty is removed (EIP-161, Spurious Dragon), as `runTx` does. */
async function credit(vm: VM, address: Address, amount: bigint): Promise<void> {
  const state = vm.stateManager;
  const account = (await state.getAccount(address)) ?? new Account();
  account.balance += amount;
  if (account.isEmpty()) {
    if (vm.common.gteHardfork(Hardfork.SpuriousDragon)) await state.deleteAccount(address);
    else await state.putAccount(address, account);
    return;
  }
  await state.putAccount(address, account);
}
