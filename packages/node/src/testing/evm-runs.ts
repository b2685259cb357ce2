import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { createVM, type RunTxResult, runTx, type VM } from "@ethereumjs/vm";
import { callRequestTransaction } from "../execution/call/call-request-tx.js";

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n } }, { common });

/** A fresh Prague VM with `code` (by address) deployed: for tests that run bytecode directly. */
export async function vmWithCode(code: Readonly<Record<string, `0x${string}`>>): Promise<VM> {
  const machine = await createVM({ common: common.copy() });
  for (const [address, bytecode] of Object.entries(code)) {
    await machine.stateManager.putCode(createAddressFromString(address), hexToBytes(bytecode));
  }
  return machine;
}

/** A call to `to` on `machine` run as a transaction (no nonce or balance checks), with `gasLimit`. */
export function runCallTo(machine: VM, to: `0x${string}`, gasLimit: bigint): Promise<RunTxResult> {
  const tx = callRequestTransaction({ to }, gasLimit, machine.common, 0n);
  return runTx(machine, { tx, block, skipNonce: true, skipBalance: true });
}

/** A 256-entry table with the given opcodes flagged, as step selections take it. */
export function opcodeFlags(...opcodes: number[]): Uint8Array {
  const selected = new Uint8Array(256);
  for (const opcode of opcodes) selected[opcode] = 1;
  return selected;
}
