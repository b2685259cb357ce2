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
// Writes a slot only when less than 100,000 gas is left (PUSH3 100000 GAS LT: jump over STOP).
const GAS_BRANCHER = "0x0000000000000000000000000000000000000081";
CODE[GAS_BRANCHER] = "0x620186a05a10600a57005b600160005500";
// Keeps `GAS` for later (GAS GAS CALL to TARGET, then the first answer stored).
const GAS_KEEPER = "0x0000000000000000000000000000000000000082";
CODE[GAS_KEEPER] = `0x5a${callAllGas(TARGET)}5060005500`;
// Reads the sender's balance (ORIGIN BALANCE), which the fee taken up front for a limit changes.
const ORIGIN_BALANCE = "0x0000000000000000000000000000000000000083";
CODE[ORIGIN_BALANCE] = "0x32315000";
// Reads its own balance (ADDRESS BALANCE): no limit changes it.
const OWN_BALANCE = "0x0000000000000000000000000000000000000084";
CODE[OWN_BALANCE] = "0x30315000";

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
  const { result, need, limitDependent } = await tracker.follow(vm, gasLimit, execute);
  return { ok: !result.execResult.exceptionError, need, limitDependent };
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
    // `GAS` handed straight to a call is modelled: the figure needs no run to confirm it.
    expect(followed.limitDependent).toBe(false);
  });

  it.each([
    ["branches on the gas left", GAS_BRANCHER, true],
    ["keeps a `GAS` answer past the call after it", GAS_KEEPER, true],
    ["reads the sender's balance", ORIGIN_BALANCE, true],
    ["reads its own balance", OWN_BALANCE, false],
  ])("tells whether a run that %s depends on the limit beyond the model", async (_, to, dependent) => {
    const followed = await run(to, CAP, new GasNeedTracker(2300n, 2300n));
    expect(followed.ok).toBe(true);
    expect(followed.limitDependent).toBe(dependent);
  });

  it("predicts a limit that fails for code that branches on the gas left (why such runs are checked)", async () => {
    const followed = await run(GAS_BRANCHER, CAP, new GasNeedTracker(2300n, 2300n));
    expect((await run(GAS_BRANCHER, followed.need!)).ok).toBe(false);
  });
});
