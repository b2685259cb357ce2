/** A value bound to a `$n` placeholder. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array | Date;

/** What both drivers offer inside and outside a transaction. */
export interface Queryable {
  /** Runs one parameterised statement and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** Runs a script of one or more statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/**
 * A PostgreSQL database: a real server through `pg`, or embedded PGlite. Both speak the same SQL and
 * return the same JS types (int8 as bigint, numeric as string, bytea as Uint8Array, timestamptz as Date).
 */
export interface Database extends Queryable {
  /** `"postgres"` for a real server, `"pglite"` for the embedded one. */
  readonly kind: "postgres" | "pglite";
  /** Runs `work` in one SQL transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
