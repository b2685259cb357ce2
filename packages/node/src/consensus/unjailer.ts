import type { BlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { STAKING_ADDRESS, Staking } from "@strata/contracts";
import type { Logger } from "pino";
import { encodeFunctionData } from "viem";
import type { Chain } from "../chain/chain.js";
import type { TxPool } from "../txpool/tx-pool.js";

/** Gas of an `unjail()` transaction, with room to spare (it clears two fields and logs an event). */
const UNJAIL_GAS = 100_000n;
/** Priority fee of an `unjail()` transaction, wei per gas. */
const UNJAIL_TIP = 1_000_000_000n;
/** Blocks after which an `unjail()` that has left the pool without taking effect is sent again. */
const RESEND_AFTER_BLOCKS = 5n;

const UNJAIL_CALLDATA = hexToBytes(encodeFunctionData({ abi: Staking.abi, functionName: "unjail" }));

/** What the unjailer needs from the node. */
export interface UnjailerOptions {
  readonly chain: Chain;
  readonly pool: TxPool;
  readonly common: Common;
  /** Keys this node seals with, by lowercase address. */
  readonly signers: ReadonlyMap<string, Uint8Array>;
  /** True for a local validator treated as offline (it is not to come back). */
  readonly isOffline: (address: string) => boolean;
  /** False while the node catches up with its peers: what it reads then is stale. */
  readonly ready: () => boolean;
  /**
   * True when `validator` is known to be an unjailed member of the validator set after `header`
   * (from what the node already read); the state is read only for a validator that is not.
   */
  readonly inRotation: (header: BlockHeader, validator: string) => boolean;
  /** The block from which `validator` may leave jail, read at `header`; undefined when it is not (or for good). */
  readonly jailEnd: (header: BlockHeader, validator: string) => Promise<bigint | undefined>;
  readonly log: Logger;
}

/**
 * Brings this node's validators back into the proposer rotation after they were jailed for missed
 * slots (a crash, a restart, a late start): on each new head, once the node has caught up with its
 * peers, a local validator that is jailed and whose cool-down ends with the next block sends
 * `Staking.unjail()` from its own account, through the pool (so gossip takes it to every proposer).
 * A validator jailed for good (double signing) is left alone. See docs/consensus.md "Jailing".
 */
export class Unjailer {
  /** The last `unjail()` sent per validator: its hash and the head it was sent on. */
  private readonly sent = new Map<string, { readonly hash: string; readonly at: bigint }>();
  private busy = false;
  /** A head that arrived while a check ran: checked next (only the latest one counts). */
  private waiting: BlockHeader | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: UnjailerOptions) {}

  /** Watches new heads. */
  start(): void {
    this.unsubscribe = this.options.chain.events.on("newHead", ({ block }) => this.onHead(block.header));
  }

  /** Stops watching. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.waiting = undefined;
  }

  private onHead(head: BlockHeader): void {
    if (!this.options.ready()) return;
    if (this.busy) {
      this.waiting = head;
      return;
    }
    this.busy = true;
    void this.check(head)
      .catch((error: unknown) => this.options.log.warn({ err: error }, "unjail check failed"))
      .finally(() => {
        this.busy = false;
        const next = this.waiting;
        this.waiting = undefined;
        if (next && this.unsubscribe) this.onHead(next);
      });
  }

  private async check(head: BlockHeader): Promise<void> {
    const { signers, isOffline, inRotation, jailEnd } = this.options;
    for (const [validator, key] of signers) {
      if (isOffline(validator) || inRotation(head, validator)) continue;
      const end = await jailEnd(head, validator);
      if (end === undefined) {
        this.sent.delete(validator);
        continue;
      }
      if (head.number + 1n < end || this.stillPending(validator, head.number)) continue;
      await this.sendUnjail(validator, key, head, end);
    }
  }

  /** True while the last `unjail()` of `validator` is in the pool or was sent only a few blocks ago. */
  private stillPending(validator: string, head: bigint): boolean {
    const last = this.sent.get(validator);
    if (!last) return false;
    return this.options.pool.get(last.hash) !== undefined || head < last.at + RESEND_AFTER_BLOCKS;
  }

  private async sendUnjail(
    validator: string,
    key: Uint8Array,
    head: BlockHeader,
    end: bigint,
  ): Promise<void> {
    const { chain, pool, common, log } = this.options;
    const account = await chain.account(chain.head, validator);
    const nonce = pool.pendingNonce(validator, account?.nonce ?? 0n);
    const tx = createFeeMarket1559Tx(
      {
        nonce,
        to: STAKING_ADDRESS,
        data: UNJAIL_CALLDATA,
        gasLimit: UNJAIL_GAS,
        maxPriorityFeePerGas: UNJAIL_TIP,
        maxFeePerGas: head.calcNextBaseFee() * 2n + UNJAIL_TIP,
        chainId: common.chainId(),
      },
      { common },
    ).sign(key);
    const hash = bytesToHex(tx.hash());
    this.sent.set(validator, { hash, at: head.number });
    await pool.add(tx);
    log.info({ validator, jailedUntil: Number(end), hash }, "validator jailed for missed slots: unjail sent");
  }
}
