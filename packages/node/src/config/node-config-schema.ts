import { z } from "zod";

/** The log levels a node accepts (pino's, and `silent`). */
const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .number({ error: `expected an integer in ${min}..${max}` })
    .refine((n) => Number.isInteger(n) && n >= min && n <= max, `expected an integer in ${min}..${max}`);
const port = integer(0, 65535);
/** Milliseconds, or Infinity for no limit (what a duration flag of 0 means). */
const duration = z.custom<number>(
  (v) => typeof v === "number" && v > 0,
  "expected a positive number of milliseconds (Infinity for none)",
);
const wei = z.bigint({ error: "expected an amount of wei (bigint)" }).nonnegative("expected at least 0 wei");
const text = z.string({ error: "expected a string" }).min(1, "expected a non-empty string");
const privateKeyHex = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte private key");

/**
 * Every setting of a node, checked after defaults are applied ({@link createNodeConfig}); the network
 * is checked apart, when it is loaded. A value out of range fails with its path and the range.
 */
export const NodeConfigSchema = z.object({
  network: z.object({ name: text, chainId: integer(1) }, { error: "expected a network" }).loose(),
  datadir: text.nullable(),
  ephemeral: z.boolean(),
  rpc: z.object({
    addr: text,
    port,
    maxBodyBytes: integer(1),
    maxBatch: integer(1),
    maxResponseBytes: integer(1),
    corsOrigin: z.string(),
    gasCap: wei,
    evmTimeoutMs: duration,
    txFeeCap: wei,
    maxTxBytes: integer(1),
    maxLogRange: integer(1),
    maxLogResults: integer(1),
    maxQueueWaitMs: integer(0),
    traceTimeoutMs: duration,
    traceMaxSteps: integer(1),
    traceMaxBytes: integer(1),
    testingMethods: z.boolean(),
    callWorkers: integer(0, 64),
    maxWsConnections: integer(0),
    maxWsConnectionsPerIp: integer(0),
    wsPingIntervalMs: duration,
    wsIdleTimeoutMs: duration,
    maxSubscriptionsPerConnection: integer(0),
    maxFiltersPerIp: integer(0),
    maxWsMessageBytes: integer(1),
    maxWsQueuedBytes: integer(1),
    metricsPort: port.nullable(),
    metricsAddr: text,
  }),
  mining: z.object({
    mode: z.enum(["instant", "interval", "manual"], { error: "expected instant | interval | manual" }),
    blockTimeSeconds: z.number().positive("expected a positive number of seconds"),
  }),
  txpool: z.object({
    maxPerSender: integer(1),
    maxTotal: integer(1),
    maxQueuedPerSender: integer(1),
    maxQueuedTotal: integer(1),
    queuedLifetimeMs: duration,
    priceBumpPercent: integer(0),
  }),
  logLevel: z.enum(LOG_LEVELS, { error: `expected ${LOG_LEVELS.join(" | ")}` }),
  validator: z
    .object({
      key: z
        .instanceof(Uint8Array, { error: "expected 32 bytes" })
        .refine((key) => key.length === 32, "expected 32 bytes")
        .optional(),
      offline: z.array(text).optional(),
      testDoubleSign: z.boolean().optional(),
    })
    .optional(),
  follow: z
    .string()
    .regex(/^https?:\/\/\S+$/, "expected an http:// or https:// JSON-RPC URL")
    .optional(),
  reporter: z
    .object({
      privateKey: privateKeyHex,
      everyBlocks: integer(1),
      maxIntervalSeconds: integer(1),
      historyDays: integer(1).optional(),
    })
    .loose()
    .nullable(),
  demo: z
    .object({ privateKey: privateKeyHex, silentAfterBlocks: integer(0), pollMs: integer(1).optional() })
    .nullable(),
  p2p: z.object({
    enabled: z.boolean(),
    port,
    addr: text,
    bootnodes: z.array(text),
    maxPeers: integer(1),
    testPeerDeny: z.boolean().optional(),
  }),
});

/** A node setting that failed validation; the message names the setting (`rpc.port: …`). */
export class NodeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NodeConfigError";
  }
}

/** Checks a complete config against {@link NodeConfigSchema}; throws a {@link NodeConfigError} naming the first bad setting. */
export function validateNodeConfig(config: unknown): void {
  const result = NodeConfigSchema.safeParse(config);
  if (result.success) return;
  const issue = result.error.issues[0]!;
  throw new NodeConfigError(`${issue.path.join(".")}: ${issue.message}`);
}
