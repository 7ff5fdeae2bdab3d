/**
 * COPY … FROM STDIN with the `pg` driver alone (no pg-copy-streams: it is not a dependency), for
 * benchmarks/insert-cost.ts: one simple-protocol Query message holding one `COPY <table> (<columns>)
 * FROM STDIN` per table, each answered with its rows in PostgreSQL's text format. A multi-statement
 * Query message runs as one implicit transaction, so the scans and their audit events commit or fail
 * together, in one round trip, without BEGIN/COMMIT: it works through PgBouncer in transaction mode.
 */
import pg from 'pg';
import type { Db } from '../store/db.ts';

/** A column of a COPY: `array` columns (text[]) take an array literal, `json` ones JSON text. */
export interface CopyColumn {
  name: string;
  kind?: 'json' | 'array';
}

export interface CopyTable {
  table: string;
  columns: readonly CopyColumn[];
  rows: readonly object[];
}

// COPY text format: backslash, tab, newline and carriage return are escaped; \N is NULL.
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escapeCopy = (s: string): string => s.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
const arrayLiteral = (items: readonly unknown[]): string =>
  `{${items.map((s) => `"${String(s).replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;

function field(value: unknown, kind: CopyColumn['kind']): string {
  if (value === null || value === undefined) return '\\N';
  if (kind === 'array') return escapeCopy(arrayLiteral(value as unknown[]));
  if (kind === 'json') return escapeCopy(JSON.stringify(value));
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return escapeCopy(String(value));
}

/** The rows of `t` in COPY text format: one line per row, tab-separated. */
export function copyText(t: CopyTable): string {
  let out = '';
  for (const row of t.rows) {
    const r = row as Record<string, unknown>;
    out += `${t.columns.map((c) => field(r[c.name], c.kind)).join('\t')}\n`;
  }
  return out;
}

interface CopyConnection {
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

/** A Query whose COPY FROM STDIN statements are answered, in order, with `chunks`. */
class CopyInQuery extends pg.Query {
  private next = 0;
  constructor(
    text: string,
    private readonly chunks: readonly Buffer[],
  ) {
    super(text);
  }

  // pg's Query answers a CopyInResponse with CopyFail; this one sends the statement's rows.
  handleCopyInResponse(connection: CopyConnection): void {
    const chunk = this.chunks[this.next++];
    if (chunk && chunk.length) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }
}

/**
 * Copies every table's rows in one Query message (one implicit transaction); tables without rows
 * are left out, on a connection of the pool `db`. Resolves once PostgreSQL answered (committed, outside an explicit transaction).
 * @throws the database error of the first row that failed (nothing of the message is kept).
 */
export async function copyIn(db: Db, tables: readonly CopyTable[]): Promise<void> {
  const used = tables.filter((t) => t.rows.length > 0);
  if (used.length === 0) return;
  const text = used.map((t) => `COPY ${t.table} (${t.columns.map((c) => c.name).join(', ')}) FROM STDIN`).join('; ');
  const query = new CopyInQuery(
    text,
    used.map((t) => Buffer.from(copyText(t))),
  );
  // pg-pool runs a Submittable (anything with submit()) on a client of its own and resolves when it ends.
  await (db as unknown as { query(s: pg.Submittable): Promise<unknown> }).query(query);
}
