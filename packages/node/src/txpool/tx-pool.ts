import type { TypedTransaction } from "@ethereumjs/tx";
import type { Account, Address } from "@ethereumjs/util";
import { bytesToHex } from "@ethereumjs/util";
import type { Chain, NewHead } from "../chain/chain.js";
import type { NodeConfig } from "../config/node-config.js";
import { TxPoolError } from "../errors/domain-errors.js";
import { effectiveTip, maxFee, maxTip } from "./fees.js";
import { CheapestIndex } from "./price-heap.js";
import { checkStatelessRules } from "./rules.js";

/** A transaction held by the pool, with its sender recovered once at admission. */
export interface PoolTx {
  readonly tx: TypedTransaction;
  readonly hash: string;
  /** The sender as lowercase hex. */
  readonly sender: string;
  readonly senderAddress: Address;
  readonly nonce: bigint;
  /** The most it can cost its sender: `gas * maxFeePerGas + value`. */
  readonly cost: bigint;
  /** When it entered the pool (milliseconds of the pool's clock). */
  readonly addedAt: number;
}

interface SenderTxs {
  readonly address: Address;
  /** The sender's nonce in the head state. */
  stateNonce: bigint;
  readonly byNonce: Map<bigint, PoolTx>;
  /** How many transactions from `stateNonce` on follow without a gap: the executable ones. */
  pending: number;
  /** The sum of the costs of all its transactions in the pool. */
  cost: bigint;
}

/** Pool contents split as geth does: `pending` (executable now) and `queued` (behind a nonce gap). */
export interface PoolContent {
  readonly pending: PoolTx[];
  readonly queued: PoolTx[];
}

/** Milliseconds since the epoch; injectable so that expiry can be tested. */
export type Clock = () => number;

/**
 * Balance and nonce changes queued for the next block (the dev methods `anvil_setBalance` and
 * `anvil_setNonce`), which the pool counts when it admits a transaction.
 */
export interface QueuedAccountEdits {
  /** `account` (undefined: none stored) as the queued edits leave it. */
  applyTo(address: string, account: Account | undefined): Account | undefined;
}

/** How often {@link TxPool.start} sweeps expired queued transactions. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The transaction pool, with geth's rules and messages: per-sender nonce-ordered transactions split
 * into `pending` (executable from the sender's nonce on, without a gap) and `queued` (behind a gap),
 * each with its own per-sender and global caps; replacement by fee bump; a sender's balance must
 * cover the sum of its transactions' costs; queued transactions expire. When pending or queued is
 * full, a better-paying transaction evicts the cheapest one (by effective tip at the next base fee,
 * then fee cap); one that pays no more than the cheapest is refused ("transaction underpriced").
 * Blocks take {@link TxPool.executable} in fee order.
 */
export class TxPool {
  private readonly senders = new Map<string, SenderTxs>();
  private readonly byHash = new Map<string, PoolTx>();
  private readonly queued = new Set<PoolTx>();
  private pendingTotal = 0;
  private readonly cheapestPending = new CheapestIndex<PoolTx>(
    cheaperAt,
    (poolTx) => this.isPending(poolTx),
    () => this.pendingTxs(),
  );
  private readonly cheapestQueued = new CheapestIndex<PoolTx>(
    cheaperAt,
    (poolTx) => this.queued.has(poolTx),
    () => [...this.queued],
  );
  private lastSweep = Number.NEGATIVE_INFINITY;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly chain: Chain,
    private readonly config: NodeConfig,
    private readonly now: Clock = Date.now,
    private readonly queuedEdits?: QueuedAccountEdits,
  ) {}

  /** Number of transactions held. */
  get size(): number {
    return this.byHash.size;
  }

  /** Number of executable (pending) transactions. */
  get pendingCount(): number {
    return this.pendingTotal;
  }

  /** Number of transactions behind a nonce gap (queued). */
  get queuedCount(): number {
    return this.queued.size;
  }

  /** A held transaction by hash. */
  get(hash: string): PoolTx | undefined {
    return this.byHash.get(hash);
  }

  /** Starts the periodic sweep of expired queued transactions (also swept on every new head). */
  start(): void {
    this.sweeper ??= setInterval(() => this.dropExpired(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Stops the sweep. */
  stop(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /**
   * Validates `tx` against the head state (with the queued account edits, if any) and the pool,
   * inserts it, and announces it.
   */
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
    const stored = await this.chain.account(this.chain.head, sender);
    // A dev method's edit (a new balance or nonce) counts at once, as on anvil and Hardhat.
    const account = this.queuedEdits ? this.queuedEdits.applyTo(sender, stored) : stored;
    const stateNonce = account?.nonce ?? 0n;
    const balance = account?.balance ?? 0n;
    if (tx.nonce < stateNonce)
      throw new TxPoolError(`nonce too low: next nonce ${stateNonce}, tx nonce ${tx.nonce}`);
    if (this.byHash.has(hash)) throw new TxPoolError("already known");
    let entry = this.senders.get(sender);
    if (entry && entry.stateNonce !== stateNonce) this.resync(entry, stateNonce);
    const cost = tx.gasLimit * maxFee(tx) + tx.value;
    const existing = entry?.byNonce.get(tx.nonce);
    const spent = (entry?.cost ?? 0n) - (existing?.cost ?? 0n);
    if (balance < spent + cost) throw insufficientFunds(balance, spent, cost);
    const poolTx: PoolTx = { tx, hash, sender, senderAddress, nonce: tx.nonce, cost, addedAt: this.now() };
    if (existing) {
      this.checkReplacement(existing.tx, tx);
    } else if (tx.nonce === stateNonce + BigInt(entry?.pending ?? 0)) {
      this.makePendingRoom(poolTx, entry, baseFee);
    } else {
      this.makeQueuedRoom(poolTx, entry, baseFee);
    }
    entry = this.senders.get(sender);
    if (!entry) {
      entry = { address: senderAddress, stateNonce, byNonce: new Map(), pending: 0, cost: 0n };
      this.senders.set(sender, entry);
    }
    this.insert(entry, poolTx, existing, baseFee);
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
    return this.pendingTotal > 0;
  }

  /** Transactions executable now, each sender's in nonce order, senders interleaved by fee (highest tip first). */
  executable(baseFee: bigint): PoolTx[] {
    const queues: PoolTx[][] = [];
    for (const entry of this.senders.values()) {
      if (entry.pending === 0) continue;
      const run: PoolTx[] = [];
      const end = entry.stateNonce + BigInt(entry.pending);
      for (let nonce = entry.stateNonce; nonce < end; nonce++) run.push(entry.byNonce.get(nonce)!);
      queues.push(run);
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
      const end = entry.stateNonce + BigInt(entry.pending);
      for (const poolTx of [...entry.byNonce.values()].sort((a, b) => (a.nonce < b.nonce ? -1 : 1))) {
        (poolTx.nonce < end ? pending : queued).push(poolTx);
      }
    }
    return { pending, queued };
  }

  /**
   * Brings the pool in line with a new head: drops transactions whose nonce is now used and those
   * the block producer found invalid (`dropped`, with their senders' later transactions), then
   * expired queued ones. Senders with a transaction in the block get their next nonce from it; the
   * others (whose nonce can still move, e.g. as EIP-7702 authorities) are read from the new head state.
   */
  async onNewHead(head: NewHead, dropped: readonly TypedTransaction[]): Promise<void> {
    for (const tx of dropped) {
      const poolTx = this.byHash.get(bytesToHex(tx.hash()));
      if (poolTx) this.removeFrom(poolTx);
    }
    const included = new Map<string, bigint>();
    const { transactions } = head.block;
    head.receipts.forEach((receipt, i) => {
      const authorizes = transactions[i]!.type === 4;
      if (!authorizes) included.set(bytesToHex(receipt.sender), transactions[i]!.nonce + 1n);
    });
    for (const [sender, entry] of this.senders) {
      const nonce = included.get(sender) ?? (await this.chain.account(head.block, sender))?.nonce ?? 0n;
      if (this.senders.get(sender) === entry) this.resync(entry, nonce);
    }
    const baseFee = head.block.header.calcNextBaseFee();
    while (this.pendingTotal > this.config.txpool.maxTotal && this.evictCheapestPending(baseFee)) {}
    this.dropExpired();
  }

  /** Drops every transaction, announcing nothing (dev: `anvil_reset`, `evm_revert`). */
  clear(): void {
    this.senders.clear();
    this.byHash.clear();
    this.queued.clear();
    this.pendingTotal = 0;
  }

  /** Drops queued transactions older than the configured lifetime. */
  dropExpired(): void {
    this.lastSweep = this.now();
    const cutoff = this.lastSweep - this.config.txpool.queuedLifetimeMs;
    for (const poolTx of this.queued) if (poolTx.addedAt <= cutoff) this.removeOne(poolTx);
  }

  /** Makes room for a transaction that extends its sender's pending run, or refuses it. */
  private makePendingRoom(poolTx: PoolTx, entry: SenderTxs | undefined, baseFee: bigint): void {
    const { maxPerSender, maxTotal } = this.config.txpool;
    if ((entry?.pending ?? 0) >= maxPerSender) throw new TxPoolError("account limit exceeded");
    if (this.pendingTotal < maxTotal) return;
    const victim = this.cheapestPending.cheapest(baseFee);
    if (!victim || !cheaperAt(victim, poolTx, baseFee)) throw new TxPoolError("transaction underpriced");
    // Evicting one of the sender's own earlier transactions would strand this one behind a gap.
    if (victim.sender === poolTx.sender) throw new TxPoolError("txpool is full");
    this.removeFrom(victim);
  }

  /** Makes room for a transaction behind a nonce gap, or refuses it; it never displaces a pending one. */
  private makeQueuedRoom(poolTx: PoolTx, entry: SenderTxs | undefined, baseFee: bigint): void {
    const { maxQueuedPerSender, maxQueuedTotal } = this.config.txpool;
    if (entry && entry.byNonce.size - entry.pending >= maxQueuedPerSender)
      throw new TxPoolError("account limit exceeded");
    if (this.queued.size < maxQueuedTotal) return;
    // A full queue is the flooded case: sweep at most once a second, not on every refusal.
    if (this.now() - this.lastSweep >= 1000) this.dropExpired();
    if (this.queued.size < maxQueuedTotal) return;
    const victim = this.cheapestQueued.cheapest(baseFee);
    if (!victim || !cheaperAt(victim, poolTx, baseFee)) throw new TxPoolError("transaction underpriced");
    this.removeOne(victim);
  }

  /** Puts an admitted transaction in place, promoting queued ones it makes executable. */
  private insert(entry: SenderTxs, poolTx: PoolTx, existing: PoolTx | undefined, baseFee: bigint): void {
    entry.byNonce.set(poolTx.nonce, poolTx);
    entry.cost += poolTx.cost - (existing?.cost ?? 0n);
    this.byHash.set(poolTx.hash, poolTx);
    if (existing) {
      this.byHash.delete(existing.hash);
      if (this.queued.delete(existing)) this.enqueue(poolTx);
      else this.cheapestPending.push(poolTx, this.pendingTotal);
      return;
    }
    if (poolTx.nonce !== entry.stateNonce + BigInt(entry.pending)) {
      this.enqueue(poolTx);
      return;
    }
    this.extendRun(entry);
    this.trimRun(entry);
    while (this.pendingTotal > this.config.txpool.maxTotal && this.evictCheapestPending(baseFee)) {}
  }

  /** Counts the transactions that follow the pending run without a gap as pending. */
  private extendRun(entry: SenderTxs): void {
    for (;;) {
      const next = entry.byNonce.get(entry.stateNonce + BigInt(entry.pending));
      if (!next) return;
      this.queued.delete(next);
      entry.pending++;
      this.pendingTotal++;
      this.cheapestPending.push(next, this.pendingTotal);
    }
  }

  private enqueue(poolTx: PoolTx): void {
    this.queued.add(poolTx);
    this.cheapestQueued.push(poolTx, this.queued.size);
  }

  /** Drops the end of a pending run longer than the per-sender cap (after a gap was filled). */
  private trimRun(entry: SenderTxs): void {
    const cap = this.config.txpool.maxPerSender;
    if (entry.pending <= cap) return;
    const last = entry.byNonce.get(entry.stateNonce + BigInt(cap));
    if (last) this.removeFrom(last);
  }

  /** Re-derives a sender's pending run and queued set from its nonce in the head state. */
  private resync(entry: SenderTxs, stateNonce: bigint): void {
    entry.stateNonce = stateNonce;
    for (const [nonce, poolTx] of entry.byNonce) {
      if (nonce >= stateNonce) continue;
      entry.byNonce.delete(nonce);
      entry.cost -= poolTx.cost;
      this.byHash.delete(poolTx.hash);
      this.queued.delete(poolTx);
    }
    this.pendingTotal -= entry.pending;
    entry.pending = 0;
    if (entry.byNonce.size === 0) {
      this.senders.delete(entry.address.toString());
      return;
    }
    this.extendRun(entry);
    const end = stateNonce + BigInt(entry.pending);
    for (const poolTx of entry.byNonce.values())
      if (poolTx.nonce >= end && !this.queued.has(poolTx)) this.enqueue(poolTx);
    this.trimRun(entry);
  }

  /** Removes `poolTx` and its sender's later transactions (which could no longer execute before it). */
  private removeFrom(poolTx: PoolTx): void {
    const entry = this.senders.get(poolTx.sender);
    if (!entry) return;
    // Highest nonce first, so that no transaction is moved to queued on its way out.
    const doomed = [...entry.byNonce.values()]
      .filter((other) => other.nonce >= poolTx.nonce)
      .sort((a, b) => (a.nonce > b.nonce ? -1 : 1));
    for (const other of doomed) this.removeOne(other);
  }

  /** Removes one transaction; a pending one cuts its sender's pending run at its nonce. */
  private removeOne(poolTx: PoolTx): void {
    const entry = this.senders.get(poolTx.sender);
    if (!entry || entry.byNonce.get(poolTx.nonce) !== poolTx) return;
    entry.byNonce.delete(poolTx.nonce);
    entry.cost -= poolTx.cost;
    this.byHash.delete(poolTx.hash);
    if (!this.queued.delete(poolTx)) {
      const kept = Number(poolTx.nonce - entry.stateNonce);
      for (let n = poolTx.nonce + 1n; n < entry.stateNonce + BigInt(entry.pending); n++) {
        this.enqueue(entry.byNonce.get(n)!);
      }
      this.pendingTotal -= entry.pending - kept;
      entry.pending = kept;
    }
    if (entry.byNonce.size === 0) this.senders.delete(poolTx.sender);
  }

  /** Evicts the cheapest pending transaction (with its sender's later ones); false when there is none. */
  private evictCheapestPending(baseFee: bigint): boolean {
    const victim = this.cheapestPending.cheapest(baseFee);
    if (!victim) return false;
    this.removeFrom(victim);
    return true;
  }

  /** The pending transactions, each sender's run in nonce order. */
  private pendingTxs(): PoolTx[] {
    const live: PoolTx[] = [];
    for (const entry of this.senders.values()) {
      const end = entry.stateNonce + BigInt(entry.pending);
      for (let nonce = entry.stateNonce; nonce < end; nonce++) live.push(entry.byNonce.get(nonce)!);
    }
    return live;
  }

  private isPending(poolTx: PoolTx): boolean {
    const entry = this.senders.get(poolTx.sender);
    return (
      entry !== undefined &&
      entry.byNonce.get(poolTx.nonce) === poolTx &&
      poolTx.nonce < entry.stateNonce + BigInt(entry.pending)
    );
  }

  private checkReplacement(old: TypedTransaction, next: TypedTransaction): void {
    const bump = BigInt(100 + this.config.txpool.priceBumpPercent);
    const feeOk = maxFee(next) * 100n >= maxFee(old) * bump;
    const tipOk = maxTip(next) * 100n >= maxTip(old) * bump;
    if (!feeOk || !tipOk) throw new TxPoolError("replacement transaction underpriced");
  }
}

/** geth's price order at `baseFee`: effective tip, then fee cap, then tip cap. */
function cheaperAt(a: PoolTx, b: PoolTx, baseFee: bigint): boolean {
  const tipA = effectiveTip(a.tx, baseFee);
  const tipB = effectiveTip(b.tx, baseFee);
  if (tipA !== tipB) return tipA < tipB;
  const feeA = maxFee(a.tx);
  const feeB = maxFee(b.tx);
  if (feeA !== feeB) return feeA < feeB;
  return maxTip(a.tx) < maxTip(b.tx);
}

/** geth's message, naming what the sender's other pool transactions already cost when they count. */
function insufficientFunds(balance: bigint, spent: bigint, cost: bigint): TxPoolError {
  const overshot = spent + cost - balance;
  return new TxPoolError(
    spent === 0n
      ? `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${overshot}`
      : `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${overshot}`,
  );
}
