import { randomBytes } from "node:crypto";
import { type Database, openDatabase, PgDatabase } from "@strata/db";

/**
 * The maintenance database of the test PostgreSQL server: `STRATA_TEST_DATABASE_URL`, else
 * `TEST_POSTGRES_URL` + `/postgres`, else the local server's.
 */
const ADMIN_URL =
  process.env.STRATA_TEST_DATABASE_URL ??
  `${process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432"}/postgres`;

/** A database of its own on the test PostgreSQL server, for one test file. */
export interface ScratchDatabase {
  /** Its `postgres://` URL. */
  readonly url: string;
  /** A connection pool to it, open until {@link drop}. */
  readonly db: Database;
  /** Closes {@link db} and drops the database, whatever connections are left on it. */
  drop(): Promise<void>;
}

/** Creates a fresh, uniquely named database on the test PostgreSQL server. */
export async function scratchDatabase(): Promise<ScratchDatabase> {
  const name = `strata_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  await adminExec(`CREATE DATABASE ${name}`);
  const url = ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  const db = await openDatabase(url);
  return {
    url,
    db,
    async drop() {
      await db.close();
      await adminExec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function adminExec(sql: string): Promise<void> {
  const admin = new PgDatabase(ADMIN_URL, 1);
  try {
    await admin.exec(sql);
  } finally {
    await admin.close();
  }
}
