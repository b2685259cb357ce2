import { readFileSync } from "node:fs";
import { createGateway, GatewayConfigError, type GatewayConfigOverrides } from "@strata/gateway";
import { type FlagSpec, type FlagValues, formatFlags, intFlag, parseFlags } from "../flags.js";
import { untilSignal } from "../signals.js";
import { UsageError } from "../usage-error.js";

/** Shortest admin token accepted: 32 characters (e.g. `openssl rand -hex 16`). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** Flags of `strata gateway`. */
export const GATEWAY_FLAGS: Record<string, FlagSpec> = {
  upstream: {
    type: "string",
    multiple: true,
    description: "node JSON-RPC URL behind the gateway; repeat for several (required)",
  },
  port: { type: "string", description: "HTTP and WebSocket port (default 4000)" },
  addr: { type: "string", description: "listen address (default 127.0.0.1)" },
  datadir: {
    type: "string",
    description: "data directory of the embedded key database (default .strata/gateway)",
  },
  "database-url": {
    type: "string",
    description: "postgres:// URL of the key database (default: embedded; also DATABASE_URL)",
  },
  "redis-url": {
    type: "string",
    description: "redis:// URL for rate-limit counters shared by instances (default: memory; also REDIS_URL)",
  },
  "admin-token": {
    type: "string",
    description: `bearer token of the /admin/keys API, at least ${MIN_ADMIN_TOKEN_LENGTH} characters (default: admin API off); prefer STRATA_ADMIN_TOKEN or --admin-token-file: a command line is visible to every user of the machine`,
  },
  "admin-token-file": {
    type: "string",
    description:
      "read the admin token from this file (first line; keep it readable by the gateway's user only)",
  },
  "metrics-port": {
    type: "string",
    description:
      "serve GET /metrics on this port of --metrics-addr only (default: on the main port while --addr is loopback, else off)",
  },
  "metrics-addr": { type: "string", description: "listen address of --metrics-port (default 127.0.0.1)" },
  "cors-origin": { type: "string", description: "Access-Control-Allow-Origin value (default *)" },
  "limiter-failure": {
    type: "string",
    description: "open | closed: what happens to requests while Redis is unreachable (default open)",
  },
  "trust-proxy": {
    type: "string",
    description:
      "N proxies in front append to X-Forwarded-For: the client IP is the Nth entry from the right (default 0: socket address)",
  },
  "log-level": { type: "string", description: "trace | debug | info | warn | error | silent (default info)" },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata gateway`. */
export const GATEWAY_HELP = `Usage: strata gateway --upstream URL [--upstream URL ...] [flags]

Runs the API gateway: JSON-RPC on POST / and /rpc, WebSocket on / and /ws, REST under /v1, /health,
/metrics, with API keys (X-API-Key) and per-tier rate limits, in front of one or more nodes.

Flags (each also read from STRATA_<FLAG>, e.g. STRATA_REDIS_URL; STRATA_UPSTREAM takes a comma-separated list):
${formatFlags(GATEWAY_FLAGS)}`;

/** The database settings shared by `strata gateway` and `strata keys`: URL, else embedded under the datadir. */
export function keyDatabaseFrom(values: FlagValues): { databaseUrl?: string; dataDir: string } {
  const url = (values["database-url"] as string | undefined) ?? process.env.DATABASE_URL;
  const dataDir = (values.datadir as string | undefined) ?? ".strata/gateway";
  return url === undefined || url === "" ? { dataDir } : { databaseUrl: url, dataDir };
}

/** Builds the gateway settings from parsed flags. */
export function gatewayConfigFromFlags(values: FlagValues): GatewayConfigOverrides {
  const raw = values.upstream;
  const upstreams = (Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [])
    .map((u) => u.trim())
    .filter((u) => u !== "");
  if (upstreams.length === 0) {
    throw new UsageError(
      "--upstream is required: a node's JSON-RPC URL, e.g. --upstream http://127.0.0.1:8545",
    );
  }
  const failure = values["limiter-failure"];
  if (failure !== undefined && failure !== "open" && failure !== "closed") {
    throw new UsageError(`--limiter-failure: expected open | closed, got "${String(failure)}"`);
  }
  const redisUrl = (values["redis-url"] as string | undefined) ?? process.env.REDIS_URL;
  return {
    upstreams,
    port: intFlag(values, "port", 4000, 0, 65535),
    ...keyDatabaseFrom(values),
    ...(redisUrl === undefined || redisUrl === "" ? {} : { redisUrl }),
    ...(typeof values.addr === "string" ? { addr: values.addr } : {}),
    ...adminTokenFrom(values),
    ...(values["metrics-port"] === undefined
      ? {}
      : { metricsPort: intFlag(values, "metrics-port", 0, 0, 65535) }),
    ...(typeof values["metrics-addr"] === "string" ? { metricsAddr: values["metrics-addr"] } : {}),
    ...(typeof values["cors-origin"] === "string" ? { corsOrigin: values["cors-origin"] } : {}),
    ...(failure === undefined ? {} : { limiterFailure: failure }),
    ...(values["trust-proxy"] === undefined ? {} : { trustProxy: trustProxyHops(values["trust-proxy"]) }),
    ...(typeof values["log-level"] === "string" ? { logLevel: values["log-level"] } : {}),
  };
}

/**
 * The admin token: `--admin-token-file` (first line), else `--admin-token` / `STRATA_ADMIN_TOKEN`; at
 * least {@link MIN_ADMIN_TOKEN_LENGTH} characters.
 */
function adminTokenFrom(values: FlagValues): { adminToken?: string } {
  const file = values["admin-token-file"];
  let token: string | undefined;
  if (typeof file === "string") {
    try {
      token = readFileSync(file, "utf8").split(/\r?\n/)[0]?.trim();
    } catch (error) {
      throw new UsageError(`--admin-token-file: ${(error as Error).message}`);
    }
  } else if (typeof values["admin-token"] === "string") {
    token = values["admin-token"].trim();
  }
  if (token === undefined) return {};
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new UsageError(
      `--admin-token: at least ${MIN_ADMIN_TOKEN_LENGTH} characters required, got ${token.length} (e.g. openssl rand -hex 16)`,
    );
  }
  return { adminToken: token };
}

/** `--trust-proxy N`: a hop count 0..32 (`true` is one hop, `false` none). */
function trustProxyHops(value: FlagValues[string]): number {
  if (value === true || value === "true") return 1;
  if (value === false || value === "false") return 0;
  const hops = Number(value);
  if (typeof value !== "string" || !/^\d+$/.test(value) || hops > 32) {
    throw new UsageError(`--trust-proxy: expected a number of proxies 0..32, got "${String(value)}"`);
  }
  return hops;
}

/** `strata gateway`: serves until SIGINT/SIGTERM, printing `ready <url>` per endpoint once it serves. */
export async function runGateway(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const values = parseFlags(argv, GATEWAY_FLAGS, { command: "gateway" });
  if (values.help) {
    out(GATEWAY_HELP);
    return 0;
  }
  if (argv.some((arg) => arg === "--admin-token" || arg.startsWith("--admin-token="))) {
    process.stderr.write(
      "strata gateway: warning: --admin-token on the command line can be read by other users of this machine (ps, /proc); use STRATA_ADMIN_TOKEN or --admin-token-file\n",
    );
  }
  const overrides = gatewayConfigFromFlags(values);
  let gateway: Awaited<ReturnType<typeof createGateway>>;
  try {
    gateway = await createGateway(overrides);
    await gateway.start();
  } catch (error) {
    if (error instanceof GatewayConfigError) throw new UsageError(error.message);
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UsageError(`--port: port ${overrides.port} is already in use`);
    }
    throw error;
  }
  const { config } = gateway;
  out(
    `Strata gateway · ${config.upstreams.length} upstream(s) · keys in ${config.databaseUrl === undefined ? `embedded database under ${config.dataDir}` : "PostgreSQL"} · limits in ${config.redisUrl === undefined ? "memory" : "Redis"}`,
  );
  out(`ready ${gateway.url}`);
  out(`ready ${gateway.wsUrl}`);
  await untilSignal();
  await gateway.stop();
  return 0;
}
