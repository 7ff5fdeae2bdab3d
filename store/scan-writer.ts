/**
 * Group commit for scans: while a batch is being written, new rows wait and go together in the
 * next transaction (up to `maxBatch` rows, `maxConcurrent` batches at once). `write` resolves only
 * after the row's transaction committed, so a response is never sent for a scan that is not stored.
 */
import type { Db } from './db.ts';
import { insertScans, type ScanRow } from './scans.ts';

interface Waiting {
  row: ScanRow;
  resolve(): void;
  reject(err: Error): void;
}

export interface ScanWriterOptions {
  maxBatch: number;
  maxConcurrent: number;
  /** Observed per committed batch (metrics). */
  onBatch?(rows: number, seconds: number): void;
}

export class ScanWriter {
  private waiting: Waiting[] = [];
  private flushing = 0;
  private idle: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly opts: ScanWriterOptions,
  ) {}

  /** Resolves once `row` is committed. @throws the database error when its batch (and its retry alone) failed. */
  write(row: ScanRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ row, resolve, reject });
      if (this.flushing < this.opts.maxConcurrent) void this.flush();
    });
  }

  /** Waits for every accepted row to be written. */
  async drain(): Promise<void> {
    if (this.flushing === 0 && this.waiting.length === 0) return;
    await new Promise<void>((resolve) => (this.idle = resolve));
  }

  private async flush(): Promise<void> {
    this.flushing++;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.opts.maxBatch);
        const started = performance.now();
        try {
          await insertScans(this.db, batch.map((w) => w.row));
          this.opts.onBatch?.(batch.length, (performance.now() - started) / 1000);
          for (const w of batch) w.resolve();
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err as Error);
          // One bad row must not fail its neighbours: retry each alone.
          else await Promise.all(batch.map((w) => insertScans(this.db, [w.row]).then(w.resolve, w.reject)));
        }
      }
    } finally {
      this.flushing--;
      if (this.flushing === 0 && this.waiting.length === 0 && this.idle) {
        this.idle();
        this.idle = null;
      }
    }
  }
}
