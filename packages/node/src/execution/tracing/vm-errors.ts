/** geth's error when a creation cannot pay for storing the code it returned. */
export const CODE_STORE_OUT_OF_GAS = "contract creation code storage out of gas";

/** geth's wording of the EVM's execution errors, by @ethereumjs/evm's error text. */
const GETH_MESSAGES: Record<string, string> = {
  revert: "execution reverted",
  "out of gas": "out of gas",
  "code store out of gas": CODE_STORE_OUT_OF_GAS,
  "code size to deposit exceeds maximum code size": "max code size exceeded",
  "stack underflow": "stack underflow",
  "stack overflow": "stack limit reached 1024",
  "invalid JUMP": "invalid jump destination",
  "static state change": "write protection",
  "create collision": "contract address collision",
  "value overflow": "gas uint64 overflow",
  "insufficient balance": "insufficient balance for transfer",
  "invalid bytecode deployed": "invalid code: must not begin with 0xef",
  "initcode exceeds max initcode size": "max initcode size exceeded",
  "refund exhausted": "refund counter below zero",
};

/**
 * The error text geth reports for a failed frame; `op` names the opcode that failed, used for
 * invalid opcodes (`invalid opcode: INVALID`, `invalid opcode: opcode 0xef not defined`).
 */
export function gethErrorMessage(evmError: string, op?: { name: string; code: number }): string {
  // Some errors carry the location they happened at ("invalid JUMP at <code hash>/<address>:<pc>").
  const kind = evmError.replace(/ at .*$/s, "");
  if (kind === "invalid opcode") {
    if (!op) return "invalid opcode";
    if (op.code === 0xfe) return "invalid opcode: INVALID";
    return `invalid opcode: opcode 0x${op.code.toString(16)} not defined`;
  }
  return GETH_MESSAGES[kind] ?? kind;
}

/** The EVM's error text for a revert, as @ethereumjs/evm reports it. */
export const REVERT = "revert";
