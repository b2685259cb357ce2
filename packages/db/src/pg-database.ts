import pg from "pg";
import type { Database, Queryable, SqlValue } from "./database.js";

const INT8_OID = 20;
const parseInt8 = (text: string) => BigInt(text);

/** A {@link Database} on a real PostgreSQL server, over a connection pool. */
export class PgDatabase implements Database {
  readonly kind = "postgres" as const;
  readonly #pool: pg.Pool;

  constructor(url: string, maxConnections = 10) {
    this.#pool = new pg.Pool({
      connectionString: url,
      max: maxConnections,
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === INT8_OID
            ? parseInt8
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.#pool.on("error", () => {});
  }

  async query<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return (await this.#pool.query(sql, params as SqlValue[])).rows as Row[];
  }

  async exec(sql: string): Promise<void> {
    await this.#pool.query(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const tx: Queryable = {
      query: async <Row>(sql: string, params: readonly SqlValue[] = []) =>
        (await client.query(sql, params as SqlValue[])).rows as Row[],
      exec: async (sql) => {
        await client.query(sql);
      },
    };
    try {
      await client.query("BEGIN");
      const result = await work(tx);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
