import { z } from "zod";
import { RpcTransaction } from "../objects/chain.js";
import { HexText } from "../objects/hex-text.js";
import { Address } from "../schemas.js";
import { method } from "./define.js";

/** Values by sender address (checksummed), then by nonce (decimal). */
const bySender = <T extends z.ZodType>(value: T) => z.record(z.string(), z.record(z.string(), value));
/** Pending and queued entries. */
const pool = <T extends z.ZodType>(entries: T) => z.object({ pending: entries, queued: entries });

/** geth's `txpool_` namespace. */
export const txpoolMethods = {
  txpool_status: method({
    params: [],
    required: 0,
    result: z.object({ pending: HexText, queued: HexText }),
    summary: "Returns the number of pending and queued transactions in the pool.",
  }),
  txpool_content: method({
    params: [],
    required: 0,
    result: pool(bySender(RpcTransaction)),
    summary: "Returns the pool's pending and queued transactions by sender and nonce.",
  }),
  txpool_contentFrom: method({
    params: [Address],
    required: 1,
    result: pool(z.record(z.string(), RpcTransaction)),
    summary: "Returns one sender's pending and queued transactions by nonce.",
  }),
  txpool_inspect: method({
    params: [],
    required: 0,
    result: pool(bySender(z.string())),
    summary: "Returns a one-line summary of every pooled transaction by sender and nonce.",
  }),
};
