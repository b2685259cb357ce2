import {
  Bool,
  ErrorCode,
  InvalidParamsError,
  LimitExceededError,
  LogFilter,
  RpcError,
} from "@strata/protocol";
import { toCriteria } from "../../log-search.js";
import { defineMethods, type RpcContext } from "../../registry.js";
import type { RpcServices } from "../../services.js";
import { SUBSCRIPTION_KINDS, type SubscriptionKind } from "../../subscriptions/subscription-manager.js";
import type { SubscriptionSink } from "../../subscriptions/subscription-sink.js";

/** geth's answer to a subscription request over a transport without notifications (HTTP). */
class NotificationsUnsupportedError extends RpcError {
  constructor() {
    super(ErrorCode.MethodNotFound, "notifications not supported");
  }
}

/** geth's answer to an unknown subscription kind. */
class UnknownSubscriptionError extends RpcError {
  constructor(kind: string) {
    super(ErrorCode.MethodNotFound, `no "${kind}" subscription in eth namespace`);
  }
}

function connectionOf(context: RpcContext): SubscriptionSink {
  if (!context.connection) throw new NotificationsUnsupportedError();
  return context.connection;
}

function kindOf(name: string): SubscriptionKind {
  if (!(SUBSCRIPTION_KINDS as readonly string[]).includes(name)) {
    throw new UnknownSubscriptionError(name);
  }
  return name as SubscriptionKind;
}

function subscribe(
  services: RpcServices,
  context: RpcContext,
  kind: SubscriptionKind,
  option: unknown,
): string {
  const sink = connectionOf(context);
  const { subscriptions } = services;
  let id: string | undefined;
  if (kind === "logs") {
    const filter = LogFilter.safeParse(option ?? {});
    if (!filter.success) throw new InvalidParamsError("invalid argument 1: invalid logs filter");
    if (filter.data.blockHash || filter.data.fromBlock || filter.data.toBlock) {
      throw new InvalidParamsError("invalid argument 1: logs subscriptions take only address and topics");
    }
    id = subscriptions.subscribe(sink, kind, { criteria: toCriteria(filter.data) });
  } else if (kind === "newPendingTransactions") {
    const full = option === undefined ? false : Bool.safeParse(option);
    if (full !== false && !full.success)
      throw new InvalidParamsError("invalid argument 1: expected a boolean");
    id = subscriptions.subscribe(sink, kind, { fullTransactions: full !== false && full.data });
  } else {
    id = subscriptions.subscribe(sink, kind);
  }
  if (!id) {
    throw new LimitExceededError(`too many subscriptions on this connection`, {
      limit: "subscriptionsPerConnection",
      max: services.config.rpc.maxSubscriptionsPerConnection,
    });
  }
  return id;
}

/** `eth_subscribe` / `eth_unsubscribe` (WebSocket only). */
export const subscriptionMethods = defineMethods({
  eth_subscribe: ([name, option], services, context) => subscribe(services, context, kindOf(name), option),
  eth_unsubscribe: ([id], services, context) => services.subscriptions.unsubscribe(connectionOf(context), id),
});
