/**
 * Code that, until its gas runs out, STATICCALLs the empty account 0xff:
 * `JUMPDEST PUSH0 PUSH0 PUSH0 PUSH0 PUSH1 0xff GAS STATICCALL POP PUSH1 0 JUMP`. A call frame costs
 * the interpreter far more time per unit of gas than plain opcodes do, so at the gas cap it runs
 * for seconds: what tests of execution limits need, however fast plain opcodes get. As init code
 * it loops in the creation itself.
 */
export const CALL_LOOPER_RUNTIME = "0x5b5f5f5f5f60ff5afa50600056";

/** Creation code of a contract whose code is {@link CALL_LOOPER_RUNTIME} (13 bytes). */
export const CALL_LOOPER_CODE = `0x6c${CALL_LOOPER_RUNTIME.slice(2)}600052600d6013f3` as const;
