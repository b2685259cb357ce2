import { PGlite, types } from "@electric-sql/pglite";
import type { Database, Queryable, SqlValue } from "./database.js";

// Passed per query: this PGlite version ignores parsers given to the constructor.
const options = { parsers: { [types.INT8]: (text: string) => BigInt(text) } };

/** A {@link Database} on embedded PGlite: in memory, or persisted under a directory. */
export class PgliteDatabase implements Database {
  readonly kind = "pglite" as const;
  readonly #db: PGlite;
  // PGlite runs one statement at a time; a transaction holds it for its whole duration.
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(db: PGlite) {
    this.#db = db;
  }

  /** Opens (creating if needed) a database under `dataDir`, or in memory when it is undefined. */
  static async open(dataDir?: string): Promise<PgliteDatabase> {
    const db = new PGlite(dataDir);
    await db.waitReady;
    return new PgliteDatabase(db);
  }

  query<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return this.#serial(async () => (await this.#db.query<Row>(sql, [...params], options)).rows);
  }

  exec(sql: string): Promise<void> {
    return this.#serial(async () => {
      await this.#db.exec(sql);
    });
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#serial(() =>
      this.#db.transaction(async (inner) =>
        work({
          query: async <Row>(sql: string, params: readonly SqlValue[] = []) =>
            (await inner.query<Row>(sql, [...params], options)).rows,
          exec: async (sql) => {
            await inner.exec(sql);
          },
        }),
      ),
    );
  }

  async close(): Promise<void> {
    await this.#queue.catch(() => {});
    await this.#db.close();
  }

  #serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => {});
    return next;
  }
}
