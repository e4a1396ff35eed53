/** Names of SQL objects as the config and the CLI write them, without zod (the CLI checks `--table` with it before any schema loads). */

/** A table name, optionally qualified: `auftraege`, `erp.auftraege` (PostgreSQL schema, MariaDB database). */
export const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
