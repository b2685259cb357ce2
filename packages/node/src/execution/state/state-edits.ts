import type { StateManagerInterface } from "@ethereumjs/common";
import { Account, setLengthLeft } from "@ethereumjs/util";
import type { DevStateEdit } from "../../storage/state-edits.js";

/**
 * Applies the dev methods' `edits` to `state`, in order: how a block applies them at its start (after
 * its system calls, before its transactions), and how a replay of that block applies them again.
 */
export async function applyStateEdits(
  state: StateManagerInterface,
  edits: readonly DevStateEdit[],
): Promise<void> {
  for (const edit of edits) {
    const account = (await state.getAccount(edit.address)) ?? new Account();
    switch (edit.kind) {
      case "balance":
        account.balance = edit.value;
        await state.putAccount(edit.address, account);
        break;
      case "nonce":
        account.nonce = edit.value;
        await state.putAccount(edit.address, account);
        break;
      case "code":
        await state.putAccount(edit.address, account);
        await state.putCode(edit.address, edit.code);
        break;
      case "storage":
        await state.putAccount(edit.address, account);
        await state.putStorage(edit.address, setLengthLeft(edit.slot, 32), edit.value);
        break;
    }
  }
}
