/** A connection that can receive subscription notifications (a WebSocket client). */
export interface SubscriptionSink {
  /** Queues one text frame; returns false when the connection is gone or was dropped as too slow. */
  send(text: string): boolean;
  /** The ids of this connection's subscriptions. */
  readonly subscriptions: Set<string>;
}
