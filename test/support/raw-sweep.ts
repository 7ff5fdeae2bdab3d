/**
 * Sweeps for raw values a test sent and the service must not keep: every text, JSON, bytea and array
 * column of every table of the test's database, the keys and values of Redis keys, and (where the
 * role may read the server's files) the write-ahead log written since a given position.
 */
import { randomInt } from 'node:crypto';
import type { Redis } from '../../lib/redis.ts';
import type { Queryable } from '../../store/db.ts';

/** PII values of one test's own, which the PII detector's regex recognizers find, random so no other test writes them. */
export interface RawPii {
  ssn: string;
  card: string;
  email: string;
  phone: string;
}

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

/** A Luhn-valid 16-digit Visa number, grouped by four. */
function cardNumber(): string {
  const body = `4${digits(14)}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return `${body}${(10 - (sum % 10)) % 10}`.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** Fresh random values (an SSN outside the never-issued areas, a card, an e-mail, a US phone number). */
export function randomPii(): RawPii {
  return {
    ssn: `${randomInt(100, 600)}-${randomInt(10, 100)}-${randomInt(1000, 10_000)}`,
    card: cardNumber(),
    email: `pii.${digits(10)}@example.com`,
    phone: `+1 650-${randomInt(200, 1000)}-${digits(4)}`,
  };
}

/** The values of `randomPii()` answers, as a list. */
export const rawValues = (p: RawPii): string[] => [p.ssn, p.card, p.email, p.phone];

/** What a table sweep looked at and where it found a raw value (`table.column`, sorted). */
export interface TableSweep {
  tables: number;
  columns: number;
  rows: number;
  found: string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Every column of every base table of the current schema that can hold text, and where a raw value occurs. */
export async function sweepTables(db: Queryable, raw: readonly string[]): Promise<TableSweep> {
  const { rows: columns } = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')
      ORDER BY c.table_name, c.column_name`,
  );
  const tables = [...new Set(columns.map((c) => c.table_name))];
  let rows = 0;
  for (const t of tables) {
    const { rows: n } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(t)}`);
    rows += n[0]!.n;
  }
  const found: string[] = [];
  for (const { table_name: t, column_name: c, data_type: type } of columns) {
    const col = quote(c);
    const conditions = raw.map((_, i) =>
      type === 'bytea'
        ? `position(convert_to($${i + 1}, 'UTF8') in ${col}) > 0`
        : `strpos(${col}::text, $${i + 1}) > 0`,
    );
    const { rows: hit } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${quote(t)} WHERE ${conditions.join(' OR ')}`,
      [...raw],
    );
    if (hit[0]!.n > 0) found.push(`${t}.${c}`);
  }
  return { tables: tables.length, columns: columns.length, rows, found };
}

/** What a Redis sweep looked at (keys matching the pattern) and which of them hold a raw value in the key or value. */
export async function sweepRedis(
  redis: Redis,
  pattern: string,
  raw: readonly string[],
): Promise<{ keys: number; found: string[] }> {
  const keys = await redis.keys(pattern);
  const found: string[] = [];
  for (const key of keys) {
    const type = await redis.type(key);
    const value = type === 'string' ? ((await redis.get(key)) ?? '') : JSON.stringify(await dump(redis, key, type));
    if (raw.some((v) => key.includes(v) || value.includes(v))) found.push(key);
  }
  return { keys: keys.length, found };
}

async function dump(redis: Redis, key: string, type: string): Promise<unknown> {
  if (type === 'hash') return redis.hgetall(key);
  if (type === 'list') return redis.lrange(key, 0, -1);
  if (type === 'set') return redis.smembers(key);
  if (type === 'zset') return redis.zrange(key, 0, -1, 'WITHSCORES');
  return null;
}

/** The server's current WAL insert position (`pg_current_wal_insert_lsn`). */
export async function walPosition(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return rows[0]!.lsn;
}

/** Whether this role may read the server's WAL files (superuser or pg_read_server_files). */
export async function canReadWal(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>(
    `SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
         OR pg_has_role(current_user, 'pg_read_server_files', 'MEMBER') AS ok`,
  );
  return rows[0]!.ok;
}

/**
 * The WAL the whole server wrote from `since` up to its flush position, searched for the raw values as
 * UTF-8: which ones occur, and how many bytes were read. The server's other databases write into the
 * same WAL: the values must be this test's own (random).
 * @throws Error when a segment since `since` was recycled already (a checkpoint meanwhile: run again).
 */
export async function sweepWal(
  db: Queryable,
  since: string,
  raw: readonly string[],
): Promise<{ bytes: number; found: string[] }> {
  const { rows: files } = await db.query<{ name: string; first: string; start: string; stop: string }>(
    `WITH b AS (SELECT $1::pg_lsn AS since, pg_current_wal_flush_lsn() AS upto)
     SELECT w.name, pg_walfile_name(b.since) AS first,
            CASE WHEN w.name = pg_walfile_name(b.since) THEN (pg_walfile_name_offset(b.since)).file_offset ELSE 0 END::text AS start,
            CASE WHEN w.name = pg_walfile_name(b.upto) THEN (pg_walfile_name_offset(b.upto)).file_offset ELSE w.size END::text AS stop
       FROM pg_ls_waldir() w, b
      WHERE w.name ~ '^[0-9A-F]{24}$' AND w.name >= pg_walfile_name(b.since) AND w.name <= pg_walfile_name(b.upto)
      ORDER BY w.name`,
    [since],
  );
  if (files[0]?.name !== files[0]?.first) throw new Error(`WAL segment of ${since} recycled already: run again`);
  let bytes = 0;
  const found = new Set<string>();
  const needles = raw.map((v) => [v, Buffer.from(v, 'utf8')] as const);
  for (const f of files) {
    const start = Number(f.start);
    const { rows } = await db.query<{ b: Buffer }>('SELECT pg_read_binary_file($1, $2, $3) AS b', [
      `pg_wal/${f.name}`,
      start,
      Number(f.stop) - start,
    ]);
    bytes += rows[0]!.b.length;
    for (const [v, needle] of needles) if (rows[0]!.b.includes(needle)) found.add(v);
  }
  return { bytes, found: [...found] };
}
