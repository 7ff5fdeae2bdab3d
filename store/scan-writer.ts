/**
 * Group commit for scans: while a batch is being written, new rows wait and go together in the
 * next transaction (up to `maxBatch` rows; more batches at once, up to `maxConcurrent`, only while
 * the queue is deep: `rowsPerExtraBatch`). `write` resolves only
 * after the row's transaction committed, so a response is never sent for a scan that is not stored.
 * Each scan's detection audit event (if its mode records one) goes in the same statement.
 */
import type { DetectionEvent } from './audit.ts';
import { isDatabaseUnavailable } from '../lib/database-errors.ts';
import type { Db } from './db.ts';
import { detectionEventFor, type DetectionEventMode } from './detection-events.ts';
import { insertScans, type ScanRow } from './scans.ts';
import type { NewDelivery } from './webhooks.ts';

const DEFAULT_ROWS_PER_EXTRA_BATCH = 16;

interface Waiting {
  row: ScanRow;
  event: DetectionEvent | null;
  deliveries: readonly NewDelivery[];
  resolve(): void;
  reject(err: Error): void;
}

export interface ScanWriterOptions {
  maxBatch: number;
  maxConcurrent: number;
  /**
   * While batches are in flight, another one starts only when this many rows per batch in flight are
   * waiting (default 16): under load rows wait for the running batch and go together in the next,
   * fewer and larger transactions, and only a deep queue spends more connections.
   */
  rowsPerExtraBatch?: number;
  /** Which scans get a detection audit event (AUDIT_DETECTION_EVENTS); default `non_allowed`. */
  detectionEvents?: DetectionEventMode;
  /** Observed per committed batch (metrics). */
  onBatch?(rows: number, seconds: number): void;
  /** Called after a batch that enqueued webhook deliveries committed (wakes the delivery pump). */
  onDeliveries?(count: number): void;
}

export class ScanWriter {
  private waiting: Waiting[] = [];
  private flushing = 0;
  private idle: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly opts: ScanWriterOptions,
  ) {}

  /**
   * Resolves once `row` (with its webhook `deliveries`) is committed.
   * @throws the database error when its batch (and its retry alone) failed.
   */
  write(row: ScanRow, deliveries: readonly NewDelivery[] = []): Promise<void> {
    return new Promise((resolve, reject) => {
      const event = detectionEventFor(row, this.opts.detectionEvents ?? 'non_allowed');
      this.waiting.push({ row, event, deliveries, resolve, reject });
      if (this.shouldStartBatch()) void this.flush();
    });
  }

  private shouldStartBatch(): boolean {
    if (this.flushing === 0) return true;
    if (this.flushing >= this.opts.maxConcurrent) return false;
    return this.waiting.length >= this.flushing * (this.opts.rowsPerExtraBatch ?? DEFAULT_ROWS_PER_EXTRA_BATCH);
  }

  /** Waits for every accepted row to be written. */
  async drain(): Promise<void> {
    if (this.flushing === 0 && this.waiting.length === 0) return;
    await new Promise<void>((resolve) => (this.idle = resolve));
  }

  private async flush(): Promise<void> {
    this.flushing++;
    try {
      // Rows that complete in the same turn of the event loop (scans whose model results arrived
      // together) join this batch instead of each opening its own.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, this.opts.maxBatch);
        const started = performance.now();
        try {
          await this.insert(batch);
          this.opts.onBatch?.(batch.length, (performance.now() - started) / 1000);
          for (const w of batch) w.resolve();
        } catch (err) {
          // A database that is away fails every row alike: no point retrying them one by one.
          if (batch.length === 1 || isDatabaseUnavailable(err)) for (const w of batch) w.reject(err as Error);
          // One bad row must not fail its neighbours: retry each alone.
          else await Promise.all(batch.map((w) => this.insert([w]).then(w.resolve, w.reject)));
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

  /** Writes scans with their detection events and deliveries: one statement, so a scan never commits without them. */
  private async insert(batch: readonly Waiting[]): Promise<void> {
    const deliveries = batch.flatMap((w) => w.deliveries);
    await insertScans(
      this.db,
      batch.map((w) => w.row),
      batch.flatMap((w) => (w.event ? [w.event] : [])),
      deliveries,
    );
    if (deliveries.length) this.opts.onDeliveries?.(deliveries.length);
  }
}
