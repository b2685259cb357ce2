import type { Database } from "./database.js";
import { PgDatabase } from "./pg-database.js";
import { PgliteDatabase } from "./pglite-database.js";

/**
 * Opens the database a service was configured with: a `postgres://` URL selects a real server;
 * otherwise embedded PGlite, persisted under `pgliteDir` (in memory when that is undefined).
 */
export async function openDatabase(url?: string, pgliteDir?: string): Promise<Database> {
  if (url !== undefined && url !== "") {
    if (!/^postgres(ql)?:\/\//.test(url))
      throw new Error(`database url must start with postgres://, got "${url}"`);
    const db = new PgDatabase(url);
    await db.query("SELECT 1");
    return db;
  }
  return PgliteDatabase.open(pgliteDir);
}
