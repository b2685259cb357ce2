import { Account } from "@ethereumjs/util";
import type { BlockHooks } from "../execution/block/block-executor.js";
import { applyStateEdits } from "../execution/state/state-edits.js";
import type { DevStateEdit } from "../storage/state-edits.js";
import type { QueuedAccountEdits } from "../txpool/tx-pool.js";

/**
 * State edits of the dev methods, waiting for the next block: blocks are sealed and committed with
 * their state root in one storage transaction, so an edit is not written into a committed state but
 * applied at the start of the next block (after its system calls, before its transactions) and
 * committed with it. Until then the pending block shows it.
 */
export class DevStateEdits implements QueuedAccountEdits {
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

  /** `account` with the queued balance and nonce edits of `address` (lowercase hex) applied, in order. */
  applyTo(address: string, account: Account | undefined): Account | undefined {
    let edited = account;
    for (const edit of this.queued) {
      if ((edit.kind !== "balance" && edit.kind !== "nonce") || edit.address.toString() !== address) continue;
      edited = new Account(
        edit.kind === "nonce" ? edit.value : edited?.nonce,
        edit.kind === "balance" ? edit.value : edited?.balance,
        edited?.storageRoot,
        edited?.codeHash,
      );
    }
    return edited;
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
        await applyStateEdits(context.vm.stateManager, edits);
      },
      afterTransactions: (context, fees) => hooks?.afterTransactions(context, fees) ?? Promise.resolve(),
      seal: (block) => (hooks ? hooks.seal(block) : block),
    };
  }
}
