import type { Database } from "./database.js";

/** One schema change: applied once, in order, recorded by name. */
export interface Migration {
  /** Unique and stable, e.g. `"indexer/001_blocks"`; the prefix names the owning component. */
  readonly name: string;
  readonly sql: string;
}

/** Applies the migrations not yet recorded, each in its own transaction; returns the names applied. */
export async function migrate(db: Database, migrations: readonly Migration[]): Promise<string[]> {
  await db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
  );
  const done = new Set(
    (await db.query<{ name: string }>("SELECT name FROM schema_migrations")).map((r) => r.name),
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.name)) continue;
    await db.transaction(async (tx) => {
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (name) VALUES ($1)", [migration.name]);
    });
    applied.push(migration.name);
  }
  return applied;
}
