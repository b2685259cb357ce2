import type { Block } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { toData } from "@strata/protocol";
import type { Chain, NewHead } from "../../chain/chain.js";
import { formatLogsOf } from "../../chain/log-format.js";
import { type LogCriteria, matchesHexLog } from "../../chain/log-query.js";
import { formatHeader } from "../format/block.js";
import { formatTransaction } from "../format/transaction.js";
import { newRpcId } from "../rpc-id.js";
import type { SubscriptionSink } from "./subscription-sink.js";

/** The subscription kinds of `eth_subscribe`. */
export const SUBSCRIPTION_KINDS = ["newHeads", "logs", "newPendingTransactions", "syncing"] as const;
/** One of {@link SUBSCRIPTION_KINDS}. */
export type SubscriptionKind = (typeof SUBSCRIPTION_KINDS)[number];

interface Subscription {
  readonly id: string;
  readonly kind: SubscriptionKind;
  readonly sink: SubscriptionSink;
  readonly criteria?: LogCriteria;
  readonly fullTransactions?: boolean;
}

/** Options of a new subscription. */
export interface SubscribeOptions {
  readonly criteria?: LogCriteria;
  readonly fullTransactions?: boolean;
}

/**
 * Fans chain events out to subscribed connections. Each block's header, and each log, is serialized
 * once per block, then wrapped per subscriber; nothing polls storage. Notifications of one block reach
 * every subscriber before the next block's, in block order, one per block (`newHeads`) or per log.
 */
export class SubscriptionManager {
  private readonly byId = new Map<string, Subscription>();
  private readonly byKind = new Map<SubscriptionKind, Set<Subscription>>(
    SUBSCRIPTION_KINDS.map((k) => [k, new Set()]),
  );
  private readonly unsubscribeChain: (() => void)[];

  constructor(
    chain: Chain,
    private readonly maxPerConnection: number,
  ) {
    this.unsubscribeChain = [
      chain.events.on("newHead", (head) => this.onNewHead(head)),
      chain.events.on("reorg", ({ removed, added }) => {
        // Logs of dropped blocks are sent again with removed: true, newest block first (as geth).
        for (const head of [...removed].reverse()) this.notifyLogs(head, true);
        // A rewind (dev: evm_revert) adds no block: newHeads learn of the head it went back to.
        if (added.length === 0) this.notifyHeader(chain.head);
      }),
      chain.events.on("pendingTransaction", (tx) => this.onPendingTransaction(tx)),
    ];
  }

  /** Number of live subscriptions. */
  get size(): number {
    return this.byId.size;
  }

  /** Adds a subscription for `sink`; undefined when the connection already holds its maximum. */
  subscribe(
    sink: SubscriptionSink,
    kind: SubscriptionKind,
    options: SubscribeOptions = {},
  ): string | undefined {
    if (sink.subscriptions.size >= this.maxPerConnection) return undefined;
    const id = newRpcId();
    const subscription: Subscription = { id, kind, sink, ...options };
    this.byId.set(id, subscription);
    this.byKind.get(kind)!.add(subscription);
    sink.subscriptions.add(id);
    return id;
  }

  /** Removes one of `sink`'s subscriptions; false when it has none with that id. */
  unsubscribe(sink: SubscriptionSink, id: string): boolean {
    const subscription = this.byId.get(id);
    if (!subscription || subscription.sink !== sink) return false;
    this.remove(subscription);
    return true;
  }

  /** Removes every subscription of a closed connection. */
  dropConnection(sink: SubscriptionSink): void {
    for (const id of sink.subscriptions) {
      const subscription = this.byId.get(id);
      if (subscription) this.remove(subscription);
    }
    sink.subscriptions.clear();
  }

  /** Stops listening to the chain. */
  close(): void {
    for (const off of this.unsubscribeChain) off();
  }

  private remove(subscription: Subscription): void {
    this.byId.delete(subscription.id);
    this.byKind.get(subscription.kind)!.delete(subscription);
    subscription.sink.subscriptions.delete(subscription.id);
  }

  private onNewHead({ block, receipts }: NewHead): void {
    this.notifyHeader(block);
    this.notifyLogs({ block, receipts }, false);
  }

  private notifyHeader(block: Block): void {
    const heads = this.byKind.get("newHeads")!;
    if (heads.size === 0) return;
    const header = JSON.stringify(formatHeader(block.header));
    for (const subscription of heads) this.notify(subscription, header);
  }

  private notifyLogs({ block, receipts }: NewHead, removed: boolean): void {
    const logSubscribers = this.byKind.get("logs")!;
    if (logSubscribers.size === 0 || receipts.every((r) => r.logs.length === 0)) return;
    const logs = formatLogsOf(block, receipts).map((log) => (removed ? { ...log, removed: true } : log));
    const serialized = logs.map((log) => JSON.stringify(log));
    for (const subscription of logSubscribers) {
      logs.forEach((log, i) => {
        if (matchesHexLog(log.address, log.topics, subscription.criteria))
          this.notify(subscription, serialized[i]!);
      });
    }
  }

  private onPendingTransaction(tx: TypedTransaction): void {
    const subscribers = this.byKind.get("newPendingTransactions")!;
    if (subscribers.size === 0) return;
    const hash = JSON.stringify(toData(tx.hash()));
    let full: string | undefined;
    for (const subscription of subscribers) {
      if (subscription.fullTransactions) {
        full ??= JSON.stringify(formatTransaction(tx, tx.getSenderAddress().bytes));
        this.notify(subscription, full);
      } else {
        this.notify(subscription, hash);
      }
    }
  }

  private notify(subscription: Subscription, resultJson: string): void {
    const delivered = subscription.sink.send(
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${subscription.id}","result":${resultJson}}}`,
    );
    if (!delivered) this.dropConnection(subscription.sink);
  }
}
