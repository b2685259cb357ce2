import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Database, type Migration, migrate, openDatabase } from "@strata/db";
import type { Clock } from "../clock.js";
import { digestsEqual, generateApiKey, hashApiKey, hashApiKeyBase64 } from "./api-key.js";
import type { Tier } from "./tiers.js";

/** The key table: only the SHA-256 digest of each key is kept, with a short public id. */
export const KEY_MIGRATIONS: readonly Migration[] = [
  {
    name: "gateway/001_api_keys",
    sql: `CREATE TABLE api_keys (
  id text PRIMARY KEY,
  key_hash bytea NOT NULL UNIQUE,
  tier text NOT NULL CHECK (tier IN ('free', 'developer', 'enterprise')),
  label text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);`,
  },
];

/** An API key as listed: never the key itself. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly tier: Tier;
  readonly label: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/** A key just created: `key` is shown once and cannot be recovered afterwards. */
export interface CreatedApiKey extends ApiKeyRecord {
  readonly key: string;
}

interface KeyRow {
  id: string;
  key_hash: Uint8Array;
  tier: Tier;
  label: string;
  created_at: Date;
  revoked_at: Date | null;
}

interface CacheEntry {
  readonly record: ApiKeyRecord | undefined;
  readonly expiresAt: number;
}

/**
 * Default bound on cached lookups of each kind. Valid and unknown keys are cached apart, so a flood of
 * random keys (which fills the unknown side, oldest first out) never pushes valid keys out of the cache.
 */
const MAX_CACHED = 10_000;

/**
 * API keys in PostgreSQL (or PGlite): create, list, revoke, and the per-request lookup. Lookups are
 * cached for `cacheSeconds` (0 disables), valid and unknown keys alike, so a flood of requests costs
 * one query per key per period; a revocation through this store takes effect at once.
 */
export class ApiKeyStore {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly unknownCache = new Map<string, CacheEntry>();
  /** Cached valid and unknown keys (each side bounded apart by {@link maxCached}), for the metrics. */
  readonly cachedLookups = {
    valid: () => this.cache.size,
    unknown: () => this.unknownCache.size,
  };

  /** `maxCached`: the most lookups cached of each kind (valid, unknown). */
  constructor(
    private readonly db: Database,
    private readonly cacheSeconds = 0,
    private readonly clock: Clock = Date.now,
    readonly maxCached = MAX_CACHED,
  ) {}

  /** Creates the key table when missing. */
  async migrate(): Promise<void> {
    await migrate(this.db, KEY_MIGRATIONS);
  }

  /** Creates a key of `tier`; the returned `key` is the only time it exists in clear. */
  async create(tier: Tier, label = ""): Promise<CreatedApiKey> {
    const key = generateApiKey();
    const id = `key_${randomBytes(6).toString("hex")}`;
    const rows = await this.db.query<KeyRow>(
      "INSERT INTO api_keys (id, key_hash, tier, label) VALUES ($1, $2, $3, $4) RETURNING *",
      [id, hashApiKey(key), tier, label],
    );
    return { ...toRecord(rows[0]!), key };
  }

  /** Rejects unless the database answers. */
  async ping(): Promise<void> {
    await this.db.query("SELECT 1");
  }

  /** Every key, oldest first. */
  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.query<KeyRow>("SELECT * FROM api_keys ORDER BY created_at, id");
    return rows.map(toRecord);
  }

  /** Revokes key `id`; false when there is no such key. Revoking twice keeps the first time. */
  async revoke(id: string): Promise<boolean> {
    const rows = await this.db.query<KeyRow>(
      "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING *",
      [id],
    );
    this.cache.clear();
    this.unknownCache.clear();
    return rows.length > 0;
  }

  /**
   * The cached answer for `key` without asking the database: its record, `null` for a key cached as
   * unknown or revoked, `undefined` when the cache does not know it (a lookup would query).
   */
  cached(key: string): ApiKeyRecord | null | undefined {
    const cacheKey = hashApiKeyBase64(key);
    const now = this.clock();
    const known = this.cache.get(cacheKey);
    if (known !== undefined && known.expiresAt > now) return known.record ?? null;
    const unknown = this.unknownCache.get(cacheKey);
    return unknown !== undefined && unknown.expiresAt > now ? null : undefined;
  }

  /** The active key matching `key`, or undefined for an unknown or revoked key. */
  async lookup(key: string): Promise<ApiKeyRecord | undefined> {
    const cacheKey = hashApiKeyBase64(key);
    const now = this.clock();
    const cached = this.cache.get(cacheKey) ?? this.unknownCache.get(cacheKey);
    if (cached !== undefined && cached.expiresAt > now) return cached.record;
    const digest = Buffer.from(cacheKey, "base64");
    const rows = await this.db.query<KeyRow>("SELECT * FROM api_keys WHERE key_hash = $1", [digest]);
    const row = rows[0];
    const record =
      row !== undefined && row.revoked_at === null && digestsEqual(Buffer.from(row.key_hash), digest)
        ? toRecord(row)
        : undefined;
    if (this.cacheSeconds > 0) {
      const cache = record === undefined ? this.unknownCache : this.cache;
      cache.delete(cacheKey);
      if (cache.size >= this.maxCached) cache.delete(cache.keys().next().value!);
      cache.set(cacheKey, { record, expiresAt: now + this.cacheSeconds * 1000 });
    }
    return record;
  }
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    tier: row.tier,
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** An opened key store and the means to close its database. */
export interface OpenedKeyStore {
  readonly store: ApiKeyStore;
  close(): Promise<void>;
}

/**
 * Opens and migrates the gateway's key database: PostgreSQL at `databaseUrl`, else embedded PGlite
 * under `<dataDir>/keys` (in memory without a dataDir), exactly where `strata gateway` keeps it.
 */
export async function openKeyStore(
  databaseUrl: string | undefined,
  dataDir: string | undefined,
): Promise<OpenedKeyStore> {
  const db = await openDatabase(databaseUrl, dataDir === undefined ? undefined : keyDatabaseDir(dataDir));
  const store = new ApiKeyStore(db);
  await store.migrate();
  return { store, close: () => db.close() };
}

/** The embedded key database's directory under a gateway data directory; its parent is created if missing. */
export function keyDatabaseDir(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  return join(dataDir, "keys");
}
