/**
 * Sweeps for raw values a test sent and the service must not keep: every text, JSON, bytea and array
 * column of every table of the test's database, the keys and values of Redis keys, and (where the
 * role may read the server's files) the write-ahead log written since a given position.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Redis } from '../../lib/redis.ts';
import type { Db, Queryable } from '../../store/db.ts';

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

/**
 * Which of many raw values occur in some bytes, in one pass: each value is a candidate only where
 * its first four bytes are (thousands of values over a hundred megabytes of WAL stay linear).
 */
class RawMatcher {
  private readonly byPrefix = new Map<number, [string, Buffer][]>();
  private readonly short: [string, Buffer][] = [];

  constructor(raw: readonly string[]) {
    for (const v of new Set(raw)) {
      const b = Buffer.from(v, 'utf8');
      if (b.length < 4) {
        this.short.push([v, b]);
        continue;
      }
      const key = b.readUInt32BE(0);
      this.byPrefix.set(key, [...(this.byPrefix.get(key) ?? []), [v, b]]);
    }
  }

  /** Adds to `into` each value that occurs in `bytes`. */
  scan(bytes: Buffer, into: Set<string>): void {
    for (const [v, b] of this.short) if (bytes.includes(b)) into.add(v);
    let window = 0;
    for (let i = 0; i < bytes.length; i++) {
      window = ((window << 8) | bytes[i]!) >>> 0;
      if (i < 3) continue;
      const candidates = this.byPrefix.get(window);
      if (!candidates) continue;
      const start = i - 3;
      for (const [v, b] of candidates) {
        const end = start + b.length;
        if (end <= bytes.length && bytes.compare(b, 0, b.length, start, end) === 0) into.add(v);
      }
    }
  }

  /** Whether any value occurs in `text` (as UTF-8). */
  holds(text: string | Buffer): boolean {
    const found = new Set<string>();
    this.scan(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, found);
    return found.size > 0;
  }
}

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
  const matcher = new RawMatcher(raw);
  const found: string[] = [];
  for (const { table_name: t, column_name: c, data_type: type } of columns) {
    // bytea as its bytes (sealed or binary values), everything else as its text form
    const value = type === 'bytea' ? quote(c) : `${quote(c)}::text`;
    const { rows: values } = await db.query<{ v: string | Buffer }>(
      `SELECT ${value} AS v FROM ${quote(t)} WHERE ${quote(c)} IS NOT NULL`,
    );
    if (values.some((x) => matcher.holds(x.v))) found.push(`${t}.${c}`);
  }
  return { tables: tables.length, columns: columns.length, rows, found };
}

/** What a Redis sweep looked at (keys matching the pattern) and which of them hold a raw value in the key or value. */
export async function sweepRedis(
  redis: Redis,
  pattern: string,
  raw: readonly string[],
): Promise<{ keys: number; found: string[] }> {
  const matcher = new RawMatcher(raw);
  const keys = await redis.keys(pattern);
  const found: string[] = [];
  for (const key of keys) {
    const type = await redis.type(key);
    const value = type === 'string' ? ((await redis.get(key)) ?? '') : JSON.stringify(await dump(redis, key, type));
    if (matcher.holds(key) || matcher.holds(value)) found.push(key);
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

/** A hold on the server's WAL from `since` on (a temporary replication slot), so no segment is recycled before the sweep. */
export interface WalHold {
  since: string;
  release(): Promise<void>;
}

/**
 * Holds the WAL from now on with a temporary physical replication slot of a connection of its own (a
 * busy server recycles segments at each checkpoint); `release` drops the slot and closes the connection.
 */
export async function holdWal(pool: Db): Promise<WalHold> {
  const client = await pool.connect();
  const slot = `raw_sweep_${randomBytes(6).toString('hex')}`;
  try {
    const { rows } = await client.query<{ lsn: string }>(
      'SELECT lsn::text AS lsn FROM pg_create_physical_replication_slot($1, true, true)',
      [slot],
    );
    return {
      since: rows[0]!.lsn,
      release: async () => {
        try {
          await client.query('SELECT pg_drop_replication_slot($1)', [slot]);
        } finally {
          client.release(true);
        }
      },
    };
  } catch (err) {
    client.release(true);
    throw err;
  }
}

/** Whether this role may hold and read the server's WAL (a replication slot, pg_ls_waldir, pg_read_binary_file): a superuser. */
export async function canSweepWal(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>('SELECT rolsuper AS ok FROM pg_roles WHERE rolname = current_user');
  return rows[0]?.ok === true;
}

/**
 * The WAL the whole server wrote from `since` up to its flush position, searched for the raw values as
 * UTF-8: which ones occur, and how many bytes were read. The server's other databases write into the
 * same WAL: the values must be this test's own (random).
 * @throws Error when a segment since `since` was recycled already (not held: `holdWal`).
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
  const matcher = new RawMatcher(raw);
  for (const f of files) {
    const start = Number(f.start);
    const { rows } = await db.query<{ b: Buffer }>('SELECT pg_read_binary_file($1, $2, $3) AS b', [
      `pg_wal/${f.name}`,
      start,
      Number(f.stop) - start,
    ]);
    bytes += rows[0]!.b.length;
    matcher.scan(rows[0]!.b, found);
  }
  return { bytes, found: [...found] };
}
