import type { TypedTransaction } from "@ethereumjs/tx";
import type { Address } from "@ethereumjs/util";
import { bytesToHex } from "@ethereumjs/util";
import type { Chain, NewHead } from "../chain/chain.js";
import type { NodeConfig } from "../config/node-config.js";
import { TxPoolError } from "../errors/domain-errors.js";
import { effectiveTip, maxFee, maxTip } from "./fees.js";
import { checkStatelessRules } from "./rules.js";

/** A transaction held by the pool, with its sender recovered once at admission. */
export interface PoolTx {
  readonly tx: TypedTransaction;
  readonly hash: string;
  /** The sender as lowercase hex. */
  readonly sender: string;
  readonly senderAddress: Address;
  readonly nonce: bigint;
}

interface SenderTxs {
  readonly address: Address;
  /** The sender's nonce in the head state. */
  stateNonce: bigint;
  readonly byNonce: Map<bigint, PoolTx>;
}

/** Pool contents split as geth does: `pending` (executable now) and `queued` (behind a nonce gap). */
export interface PoolContent {
  readonly pending: PoolTx[];
  readonly queued: PoolTx[];
}

/**
 * The transaction pool: per-sender nonce-ordered transactions, replacement by fee bump, limits per
 * sender and in total, and geth's admission errors. Blocks take {@link TxPool.executable} in fee order.
 */
export class TxPool {
  private readonly senders = new Map<string, SenderTxs>();
  private readonly byHash = new Map<string, PoolTx>();

  constructor(
    private readonly chain: Chain,
    private readonly config: NodeConfig,
  ) {}

  /** Number of transactions held. */
  get size(): number {
    return this.byHash.size;
  }

  /** A held transaction by hash. */
  get(hash: string): PoolTx | undefined {
    return this.byHash.get(hash);
  }

  /** Validates `tx` against the head state and the pool, inserts it, and announces it. */
  async add(tx: TypedTransaction): Promise<PoolTx> {
    const hash = bytesToHex(tx.hash());
    if (this.byHash.has(hash)) throw new TxPoolError("already known");
    const head = this.chain.head.header;
    const baseFee = head.calcNextBaseFee();
    checkStatelessRules(tx, {
      blockGasLimit: head.gasLimit,
      baseFee,
      txFeeCap: this.config.rpc.txFeeCap,
    });
    const senderAddress = tx.getSenderAddress();
    const sender = senderAddress.toString();
    const account = await this.chain.account(this.chain.head, sender);
    const stateNonce = account?.nonce ?? 0n;
    const balance = account?.balance ?? 0n;
    if (tx.nonce < stateNonce)
      throw new TxPoolError(`nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`);
    const cost = tx.gasLimit * maxFee(tx) + tx.value;
    if (balance < cost) {
      throw new TxPoolError(
        `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
      );
    }
    if (this.byHash.has(hash)) throw new TxPoolError("already known");
    let entry = this.senders.get(sender);
    const existing = entry?.byNonce.get(tx.nonce);
    if (existing) {
      this.checkReplacement(existing.tx, tx);
    } else {
      if ((entry?.byNonce.size ?? 0) >= this.config.txpool.maxPerSender)
        throw new TxPoolError("account limit exceeded");
      if (this.byHash.size >= this.config.txpool.maxTotal) throw new TxPoolError("txpool is full");
    }
    if (!entry) {
      entry = { address: senderAddress, stateNonce, byNonce: new Map() };
      this.senders.set(sender, entry);
    }
    entry.stateNonce = stateNonce;
    const poolTx: PoolTx = { tx, hash, sender, senderAddress, nonce: tx.nonce };
    if (existing) this.byHash.delete(existing.hash);
    entry.byNonce.set(tx.nonce, poolTx);
    this.byHash.set(hash, poolTx);
    this.chain.events.emit("pendingTransaction", tx);
    return poolTx;
  }

  /** The next nonce of `sender` counting its executable pool transactions, given its state nonce. */
  pendingNonce(sender: string, stateNonce: bigint): bigint {
    const entry = this.senders.get(sender);
    let nonce = stateNonce;
    while (entry?.byNonce.has(nonce)) nonce++;
    return nonce;
  }

  /** True when some sender has a transaction at its next nonce (cheaper than {@link TxPool.executable}). */
  hasExecutable(): boolean {
    for (const entry of this.senders.values()) if (entry.byNonce.has(entry.stateNonce)) return true;
    return false;
  }

  /** Transactions executable now, each sender's in nonce order, senders interleaved by fee (highest tip first). */
  executable(baseFee: bigint): PoolTx[] {
    const queues: PoolTx[][] = [];
    for (const entry of this.senders.values()) {
      const run: PoolTx[] = [];
      for (let nonce = entry.stateNonce; ; nonce++) {
        const poolTx = entry.byNonce.get(nonce);
        if (!poolTx) break;
        run.push(poolTx);
      }
      if (run.length > 0) queues.push(run);
    }
    const out: PoolTx[] = [];
    const cursor = queues.map(() => 0);
    for (;;) {
      let best = -1;
      let bestTip = -1n;
      for (let i = 0; i < queues.length; i++) {
        const next = queues[i]![cursor[i]!];
        if (!next) continue;
        const tip = effectiveTip(next.tx, baseFee);
        if (tip > bestTip) {
          best = i;
          bestTip = tip;
        }
      }
      if (best < 0) return out;
      out.push(queues[best]![cursor[best]!]!);
      cursor[best]!++;
    }
  }

  /** Pending and queued transactions. */
  content(): PoolContent {
    const pending: PoolTx[] = [];
    const queued: PoolTx[] = [];
    for (const entry of this.senders.values()) {
      let next = entry.stateNonce;
      for (const poolTx of [...entry.byNonce.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1))) {
        if (poolTx.nonce === next) {
          pending.push(poolTx);
          next++;
        } else {
          queued.push(poolTx);
        }
      }
    }
    return { pending, queued };
  }

  /**
   * Brings the pool in line with a new head: drops transactions whose nonce is now used and those
   * the block producer found invalid (`dropped`). Senders with a transaction in the block get their
   * next nonce from it; the others (whose nonce can still move, e.g. as EIP-7702 authorities) are
   * read from the new head state.
   */
  async onNewHead(head: NewHead, dropped: readonly TypedTransaction[]): Promise<void> {
    for (const tx of dropped) this.remove(bytesToHex(tx.hash()));
    const included = new Map<string, bigint>();
    const { transactions } = head.block;
    head.receipts.forEach((receipt, i) => {
      const authorizes = transactions[i]!.type === 4;
      if (!authorizes) included.set(bytesToHex(receipt.sender), transactions[i]!.nonce + 1n);
    });
    for (const [sender, entry] of this.senders) {
      const nonce = included.get(sender) ?? (await this.chain.account(head.block, sender))?.nonce ?? 0n;
      entry.stateNonce = nonce;
      for (const [txNonce, poolTx] of entry.byNonce) {
        if (txNonce < nonce) {
          entry.byNonce.delete(txNonce);
          this.byHash.delete(poolTx.hash);
        }
      }
      if (entry.byNonce.size === 0) this.senders.delete(sender);
    }
  }

  private remove(hash: string): void {
    const poolTx = this.byHash.get(hash);
    if (!poolTx) return;
    this.byHash.delete(hash);
    const entry = this.senders.get(poolTx.sender);
    entry?.byNonce.delete(poolTx.nonce);
    if (entry && entry.byNonce.size === 0) this.senders.delete(poolTx.sender);
  }

  private checkReplacement(old: TypedTransaction, next: TypedTransaction): void {
    const bump = BigInt(100 + this.config.txpool.priceBumpPercent);
    const feeOk = maxFee(next) * 100n >= maxFee(old) * bump;
    const tipOk = maxTip(next) * 100n >= maxTip(old) * bump;
    if (!feeOk || !tipOk) throw new TxPoolError("replacement transaction underpriced");
  }
}
