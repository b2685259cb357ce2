import { Account, type Address, setLengthLeft } from "@ethereumjs/util";
import type { BlockContext, BlockHooks } from "../execution/block/block-executor.js";

/** One change of an account made by a dev method (`anvil_setBalance`, `anvil_setCode`, ...). */
export type DevStateEdit =
  | { readonly kind: "balance"; readonly address: Address; readonly value: bigint }
  | { readonly kind: "nonce"; readonly address: Address; readonly value: bigint }
  | { readonly kind: "code"; readonly address: Address; readonly code: Uint8Array }
  | {
      readonly kind: "storage";
      readonly address: Address;
      readonly slot: Uint8Array;
      readonly value: Uint8Array;
    };

/**
 * State edits of the dev methods, waiting for the next block: blocks are sealed and committed with
 * their state root in one storage transaction, so an edit is not written into a committed state but
 * applied at the start of the next block (after its system calls, before its transactions) and
 * committed with it. Until then the pending block shows it.
 */
export class DevStateEdits {
  private queued: DevStateEdit[] = [];
  private version = 0;

  /** True when no edit waits for the next block. */
  get isEmpty(): boolean {
    return this.queued.length === 0;
  }

  /** Changes with every edit queued or taken (part of the pending block's identity). */
  get revision(): number {
    return this.version;
  }

  /** Queues `edit` for the next block. */
  add(edit: DevStateEdit): void {
    this.queued.push(edit);
    this.version++;
  }

  /** The queued edits, left in place (the pending block). */
  peek(): readonly DevStateEdit[] | undefined {
    return this.queued.length === 0 ? undefined : [...this.queued];
  }

  /** Takes the queued edits for the block being built. */
  take(): DevStateEdit[] | undefined {
    if (this.queued.length === 0) return undefined;
    const taken = this.queued;
    this.queued = [];
    this.version++;
    return taken;
  }

  /** Puts back edits taken for a block that could not be built. */
  putBack(edits: DevStateEdit[] | undefined): void {
    if (!edits) return;
    this.queued = [...edits, ...this.queued];
    this.version++;
  }

  /** Replaces the queued edits with `edits` (dev: `evm_revert` puts back those queued at the snapshot). */
  replace(edits: readonly DevStateEdit[]): void {
    this.queued = [...edits];
    this.version++;
  }

  /** `hooks` (or none) with `edits` applied after the block's own start-of-block steps. */
  withEdits(
    hooks: BlockHooks | undefined,
    edits: readonly DevStateEdit[] | undefined,
  ): BlockHooks | undefined {
    if (!edits) return hooks;
    return {
      prepare: (vm, parent, template) =>
        hooks ? hooks.prepare(vm, parent, template) : Promise.resolve(template),
      beforeTransactions: async (context) => {
        await hooks?.beforeTransactions(context);
        await applyEdits(context, edits);
      },
      afterTransactions: (context, fees) => hooks?.afterTransactions(context, fees) ?? Promise.resolve(),
      seal: (block) => (hooks ? hooks.seal(block) : block),
    };
  }
}

async function applyEdits(context: BlockContext, edits: readonly DevStateEdit[]): Promise<void> {
  const state = context.vm.stateManager;
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
