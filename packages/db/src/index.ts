export type { Database, Queryable, SqlValue } from "./database.js";
export * as indexerDb from "./indexer/index.js";
export { type Migration, migrate } from "./migrate.js";
export { INDEXER_MIGRATIONS } from "./migrations/indexer.js";
export { openDatabase } from "./open.js";
export { PgDatabase } from "./pg-database.js";
export { PgliteDatabase } from "./pglite-database.js";
