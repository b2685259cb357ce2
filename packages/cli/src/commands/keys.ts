import {
  type ApiKeyRecord,
  isTier,
  type OpenedKeyStore,
  openKeyStore,
  TIERS,
  type Tier,
} from "@strata/gateway";
import { type FlagSpec, formatFlags, parseFlags } from "../flags.js";
import { UsageError } from "../usage-error.js";
import { keyDatabaseFrom } from "./gateway.js";

/** Flags of `strata keys`. */
export const KEYS_FLAGS: Record<string, FlagSpec> = {
  tier: { type: "string", description: `${TIERS.join(" | ")} (create only, required)` },
  label: { type: "string", description: "a name to recognise the key by (create only)" },
  datadir: { type: "string", description: "the gateway's data directory (default .strata/gateway)" },
  "database-url": { type: "string", description: "postgres:// URL of the key database (also DATABASE_URL)" },
  help: { type: "boolean", description: "print this help" },
};

/** Help text of `strata keys`. */
export const KEYS_HELP = `Usage: strata keys create --tier ${TIERS.join("|")} [--label TEXT]
       strata keys list
       strata keys revoke ID

Manages the gateway's API keys. A key is printed once, at creation; only its SHA-256 hash is stored.
With the embedded database, stop the gateway first (or use its /admin/keys API).

Flags (each also read from STRATA_<FLAG>):
${formatFlags(KEYS_FLAGS)}`;

/** `strata keys create|list|revoke`. */
export async function runKeys(argv: readonly string[], out: (line: string) => void): Promise<number> {
  const [action, ...rest] = argv;
  if (action === undefined) throw new UsageError("keys: an action is required: create | list | revoke");
  if (action === "--help" || action === "-h" || action === "help") {
    out(KEYS_HELP);
    return 0;
  }
  const id = action === "revoke" && rest[0] !== undefined && !rest[0].startsWith("-") ? rest[0] : undefined;
  const values = parseFlags(id === undefined ? rest : rest.slice(1), KEYS_FLAGS, { command: "keys" });
  if (values.help) {
    out(KEYS_HELP);
    return 0;
  }
  if (action !== "create" && action !== "list" && action !== "revoke") {
    throw new UsageError(`keys: unknown action "${action}" (create | list | revoke)`);
  }
  const tier = values.tier;
  if (action === "create" && (typeof tier !== "string" || !isTier(tier))) {
    throw new UsageError(`--tier: expected ${TIERS.join(" | ")}, got "${String(tier ?? "")}"`);
  }
  if (action === "revoke" && id === undefined) throw new UsageError("keys revoke: the key ID is required");
  const { databaseUrl, dataDir } = keyDatabaseFrom(values);
  let opened: OpenedKeyStore;
  try {
    opened = await openKeyStore(databaseUrl, dataDir);
  } catch (error) {
    throw new UsageError(`key database: ${(error as Error).message}`);
  }
  const { store } = opened;
  try {
    if (action === "create") {
      const created = await store.create(tier as Tier, (values.label as string | undefined) ?? "");
      out(`id     ${created.id}`);
      out(`tier   ${created.tier}`);
      if (created.label !== "") out(`label  ${created.label}`);
      out(`key    ${created.key}`);
      out("The key is shown only now; store it safely. Send it as the X-API-Key header.");
      return 0;
    }
    if (action === "list") {
      const keys = await store.list();
      if (keys.length === 0) out("no keys");
      for (const key of keys) out(formatKey(key));
      return 0;
    }
    if (!(await store.revoke(id!))) {
      process.stderr.write(`strata: keys revoke: no key with id ${id}\n`);
      return 1;
    }
    out(`revoked ${id}`);
    return 0;
  } finally {
    await opened.close();
  }
}

function formatKey(key: ApiKeyRecord): string {
  const state = key.revokedAt === null ? "active" : `revoked ${key.revokedAt.toISOString()}`;
  return `${key.id}  ${key.tier.padEnd(10)}  ${key.createdAt.toISOString()}  ${state}  ${key.label}`;
}
