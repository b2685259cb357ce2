import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createAddressFromString, hexToBytes } from "@ethereumjs/util";
import { createVM, runTx } from "@ethereumjs/vm";
import { describe, expect, it } from "vitest";
import { callRequestTransaction } from "./call-request-tx.js";
import { GasNeedTracker } from "./gas-need.js";

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
const block = createBlock({ header: { gasLimit: 30_000_000n, baseFeePerGas: 0n } }, { common });
const CAP = 30_000_000n;

const TARGET = "0x00000000000000000000000000000000000000b0";
const CALLER = "0x00000000000000000000000000000000000000c0";
const OUTER = "0x00000000000000000000000000000000000000d0";
const PAYER = "0x00000000000000000000000000000000000000a0";
const CREATOR = "0x0000000000000000000000000000000000000090";
const FAILER = "0x00000000000000000000000000000000000000e0";

/** `CALL(GAS, to, value, no input, no output)` (33 bytes), its result left on the stack. */
const callAllGas = (to: string, value = 0) =>
  `600060006000600060${value.toString(16).padStart(2, "0")}73${to.slice(2)}5af1`;
/** A whole contract: the call, then STOP, or REVERT when the call failed (the jump lands at byte 38). */
const callAllGasOrRevert = (to: string, value = 0) => `0x${callAllGas(to, value)}15602657005b60006000fd`;

const CODE: Record<string, string> = {
  // Writes slot 0 twice: the second SSTORE costs 100 but needs EIP-2200's 2300 left.
  [TARGET]: "0x6001600055600260005500",
  // Calls TARGET with all its gas (EIP-150 keeps 1/64 back), and fails when it fails.
  [CALLER]: callAllGasOrRevert(TARGET),
  // Calls CALLER, which calls TARGET: 1/64 kept back twice.
  [OUTER]: callAllGasOrRevert(CALLER),
  // Sends TARGET 1 wei: the callee gets the 2,300 gas stipend on top of what the caller hands over.
  [PAYER]: callAllGasOrRevert(TARGET, 1),
  // CREATEs a contract whose init code writes a slot (EIP-150 keeps 1/64 back from CREATE too),
  // and fails when the creation fails.
  [CREATOR]: "0x69600160005560006000f3600052600a60166000f015601a57005b60006000fd",
  // INVALID: fails, using all the gas it was handed.
  [FAILER]: "0xfe",
};
// Calls FAILER, ignores the failure, then writes a slot: it needs 64 times what the write costs.
const SWALLOWER = "0x00000000000000000000000000000000000000f0";
CODE[SWALLOWER] = `0x${callAllGas(FAILER)}50600160005500`;

async function vmWithContracts() {
  const vm = await createVM({ common: common.copy() });
  for (const [address, code] of Object.entries(CODE)) {
    await vm.stateManager.putCode(createAddressFromString(address), hexToBytes(code as `0x${string}`));
  }
  await vm.stateManager.modifyAccountFields(createAddressFromString(PAYER), { balance: 1n });
  return vm;
}

async function run(to: string, gasLimit: bigint, tracker?: GasNeedTracker) {
  const vm = await vmWithContracts();
  const tx = callRequestTransaction({ to: to as `0x${string}` }, gasLimit, vm.common, 0n);
  const execute = () => runTx(vm, { tx, block, skipNonce: true, skipBalance: true });
  if (!tracker) return { ok: !(await execute()).execResult.exceptionError };
  const { result, need } = await tracker.follow(vm, gasLimit, execute);
  return { ok: !result.execResult.exceptionError, need };
}

/** The least gas limit with which a call to `to` succeeds, by bisection to the unit. */
async function leastGas(to: string): Promise<bigint> {
  let lo = 21_000n;
  let hi = CAP;
  while (lo + 1n < hi) {
    const mid = (lo + hi) / 2n;
    if ((await run(to, mid)).ok) hi = mid;
    else lo = mid;
  }
  return hi;
}

describe("GasNeedTracker", () => {
  it.each([
    ["an SSTORE that needs EIP-2200's sentry left", TARGET],
    ["a call that EIP-150 keeps 1/64 back from", CALLER],
    ["two nested calls", OUTER],
    ["a call that hands over value and its stipend", PAYER],
    ["a contract creation", CREATOR],
    ["a swallowed sub-call that uses all it is handed", SWALLOWER],
  ])("finds the least gas limit for %s from one run at the cap", async (_, to) => {
    const followed = await run(to, CAP, new GasNeedTracker(2300n, 2300n));
    expect(followed.ok).toBe(true);
    expect(followed.need).toBe(await leastGas(to));
  });
});
