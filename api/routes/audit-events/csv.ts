/**
 * The CSV rendering of a page (`Accept: text/csv`), written in chunks that honour backpressure:
 * a page may hold 10,000 rows, and a slow client must not make the process buffer all of them.
 */
import type { Response } from 'express';
import { csvRow, type CsvValue } from '../../../lib/csv.ts';

const ROWS_PER_CHUNK = 256;

/** Resolves when `res` can take more, or has closed (the client went away). */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    // Closed already: neither event will come again.
    if (res.destroyed) return resolve();
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Writes the header row and `rows` (headers and status already set), then ends the response. Stops
 * quietly when the client disconnects.
 */
export async function streamCsv(
  res: Response,
  columns: readonly string[],
  rows: readonly (readonly CsvValue[])[],
): Promise<void> {
  // A client gone before the first write (during the query) has already emitted 'close'.
  let closed = res.destroyed;
  res.once('close', () => (closed = true));
  let chunk = csvRow(columns);
  for (let i = 0; i < rows.length; i++) {
    chunk += csvRow(rows[i]!);
    if ((i + 1) % ROWS_PER_CHUNK !== 0) continue;
    if (closed) return;
    if (!res.write(chunk)) await writable(res);
    chunk = '';
  }
  if (!closed) res.end(chunk);
}
