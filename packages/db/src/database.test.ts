import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchDatabase } from "../../../test/support/scratch-database.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { openDatabase } from "./open.js";

const MIGRATIONS = [
  {
    name: "test/001",
    sql: "CREATE TABLE t (id int8 PRIMARY KEY, amount numeric, data bytea, at timestamptz)",
  },
  { name: "test/002", sql: "ALTER TABLE t ADD COLUMN label text" },
];

function behavesAsPostgres(open: () => Promise<{ db: Database; done(): Promise<void> }>) {
  let db: Database;
  let done: () => Promise<void>;
  beforeAll(async () => {
    ({ db, done } = await open());
  });
  afterAll(async () => {
    await db.close();
    await done();
  });

  it("applies migrations once, in order", async () => {
    expect(await migrate(db, MIGRATIONS)).toEqual(["test/001", "test/002"]);
    expect(await migrate(db, MIGRATIONS)).toEqual([]);
  });

  it("returns int8 as bigint, numeric as string, bytea as bytes", async () => {
    await db.query("INSERT INTO t (id, amount, data, at, label) VALUES ($1, $2, $3, $4, $5)", [
      2n ** 62n,
      "123456789012345678901234567890",
      new Uint8Array([1, 2, 3]),
      new Date("2026-01-02T03:04:05Z"),
      "x",
    ]);
    const [row] = await db.query<{ id: bigint; amount: string; data: Uint8Array; at: Date }>(
      "SELECT * FROM t",
    );
    expect(row?.id).toBe(2n ** 62n);
    expect(row?.amount).toBe("123456789012345678901234567890");
    expect([...(row?.data ?? [])]).toEqual([1, 2, 3]);
    expect(row?.at.toISOString()).toBe("2026-01-02T03:04:05.000Z");
  });

  it("rolls a failed transaction back whole", async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES (1)");
        await tx.query("INSERT INTO t (id) VALUES (1)");
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.query("SELECT id FROM t WHERE id = 1")).toEqual([]);
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id) VALUES (1)");
    });
    expect(await db.query("SELECT id FROM t WHERE id = 1")).toEqual([{ id: 1n }]);
  });
}

describe("PostgreSQL server", () => {
  behavesAsPostgres(async () => {
    const scratch = await scratchDatabase();
    return { db: await openDatabase(scratch.url), done: () => scratch.drop() };
  });
});

describe("embedded PGlite", () => {
  behavesAsPostgres(async () => ({ db: await openDatabase(), done: async () => {} }));
});

describe("openDatabase", () => {
  it("refuses a url that is not postgres://", async () => {
    await expect(openDatabase("mysql://x")).rejects.toThrow(/postgres:\/\//);
  });
});
