import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase } from "../../../../test/support/scratch-database.js";
import { startTestNode, type TestNode } from "../../../node/src/testing/test-node.js";
import { call, get, post, startGateway } from "../e2e/helpers.js";
import type { Gateway } from "../gateway.js";
import { ApiKeyStore } from "./key-store.js";

let database: Awaited<ReturnType<typeof scratchDatabase>>;
let store: ApiKeyStore;

beforeAll(async () => {
  database = await scratchDatabase();
  store = new ApiKeyStore(database.db);
  await store.migrate();
});

afterAll(async () => {
  await database?.drop();
});

describe("API keys in PostgreSQL", () => {
  it("stores only the SHA-256 hash: the clear key appears nowhere in the database", async () => {
    const created = await store.create("developer", "analytics");
    expect(created.key).toMatch(/^strata_[A-Za-z0-9_-]{43}$/);
    const rows = await database.db.query<Record<string, unknown>>("SELECT * FROM api_keys WHERE id = $1", [
      created.id,
    ]);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(Buffer.from(row.key_hash as Uint8Array).toString("hex")).toBe(
      createHash("sha256").update(created.key).digest("hex"),
    );
    const dump = await database.db.query<{ text: string }>(
      "SELECT string_agg(t::text, ' ') AS text FROM api_keys t",
    );
    expect(dump[0]!.text).not.toContain(created.key);
    expect(dump[0]!.text).not.toContain(created.key.slice("strata_".length));
    expect(await store.lookup(created.key)).toMatchObject({
      id: created.id,
      tier: "developer",
      label: "analytics",
    });
  });

  it("lists keys without the key, and a revoked key stops matching", async () => {
    const created = await store.create("free");
    const listed = (await store.list()).find((k) => k.id === created.id);
    expect(listed).toEqual({
      id: created.id,
      tier: "free",
      label: "",
      createdAt: created.createdAt,
      revokedAt: null,
    });
    expect(JSON.stringify(await store.list())).not.toContain(created.key);
    expect(await store.revoke(created.id)).toBe(true);
    expect(await store.lookup(created.key)).toBeUndefined();
    expect((await store.list()).find((k) => k.id === created.id)?.revokedAt).toBeInstanceOf(Date);
    expect(await store.revoke("key_missing")).toBe(false);
    expect(await store.lookup(`${created.key}x`)).toBeUndefined();
  });
});

describe("API key lookup cache", () => {
  it("stays at its bound of valid and of unknown keys when filled past it, each side apart", async () => {
    const bound = 5;
    const cached = new ApiKeyStore(database.db, 60, Date.now, bound);
    expect(cached.maxCached).toBe(bound);
    const valid = await Promise.all(Array.from({ length: 2 * bound }, () => store.create("developer")));
    for (const { key } of valid) {
      expect(await cached.lookup(key)).toBeDefined();
      expect(cached.cachedLookups.valid()).toBeLessThanOrEqual(bound);
    }
    expect(cached.cachedLookups.valid()).toBe(bound);
    // The newest lookups stay cached; the oldest went first.
    expect(cached.cached(valid.at(-1)!.key)).toMatchObject({ id: valid.at(-1)!.id });
    expect(cached.cached(valid[0]!.key)).toBeUndefined();
    for (let i = 0; i < 3 * bound; i++) {
      expect(await cached.lookup(`strata_unknown_${i}`)).toBeUndefined();
      expect(cached.cachedLookups.unknown()).toBeLessThanOrEqual(bound);
    }
    expect(cached.cachedLookups.unknown()).toBe(bound);
    // Random keys never push valid ones out.
    expect(cached.cachedLookups.valid()).toBe(bound);
    expect(cached.cached(valid.at(-1)!.key)).toMatchObject({ id: valid.at(-1)!.id });
  });
});

describe("admin API", () => {
  let node: TestNode;
  let gateway: Gateway;
  const token = "admin-secret-token-of-32-characters";

  beforeAll(async () => {
    node = await startTestNode();
    gateway = await startGateway({
      upstreams: [node.url],
      port: 0,
      databaseUrl: database.url,
      adminToken: token,
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await node?.stop();
  });

  it("creates, lists and revokes keys behind the admin token", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    expect((await post(`${gateway.url}/admin/keys`, { tier: "developer" })).status).toBe(401);
    expect(
      (await post(`${gateway.url}/admin/keys`, { tier: "developer" }, { Authorization: "Bearer wrong" }))
        .status,
    ).toBe(401);
    const bad = await post(`${gateway.url}/admin/keys`, { tier: "gold" }, auth);
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/^invalid body: tier/);
    const created = await post(`${gateway.url}/admin/keys`, { tier: "developer", label: "mobile app" }, auth);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ tier: "developer", label: "mobile app" });
    const key = String(created.json.key);
    const used = await post(`${gateway.url}/rpc`, call("eth_chainId"), { "X-API-Key": key });
    expect(used.status).toBe(200);
    expect(used.headers.get("ratelimit-limit")).toBe("50");
    const list = (await get(`${gateway.url}/admin/keys`, auth)).json;
    expect(list.keys.some((k) => k.id === created.json.id)).toBe(true);
    expect(JSON.stringify(list)).not.toContain(key);
    const revoked = await fetch(`${gateway.url}/admin/keys/${created.json.id}`, {
      method: "DELETE",
      headers: auth,
    });
    expect(revoked.status).toBe(200);
    expect((await post(`${gateway.url}/rpc`, call("eth_chainId"), { "X-API-Key": key })).status).toBe(401);
    const missing = await fetch(`${gateway.url}/admin/keys/key_nope`, { method: "DELETE", headers: auth });
    expect(missing.status).toBe(404);
  });
});
