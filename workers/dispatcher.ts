/**
 * Our bounded FIFO in front of the pool. Piscina's own queue starves tasks under constant load, so
 * tasks in flight never exceed the thread count and everything else waits here, oldest first.
 * Requests waiting for the same model are micro-batched into one task (one ORT run). A request large
 * enough to keep a thread busy for a while (a long document's windows) is split into one piece per
 * thread, so its latency is that of its share rather than of the whole.
 */
import {
  ModelDeadlineError,
  ModelOverloadedError,
  ModelUnavailableError,
  type ModelClient,
} from '../engine/model-client.ts';
import type { Entity } from '../inference/token-classifier.ts';
import type { TaskRunner } from './pool.ts';
import type { InferencePart, ModelReply } from './protocol.ts';

export interface DispatcherObserver {
  /** A batch left the queue: how long its oldest request waited, and how many texts it carries. */
  dispatched(waitMs: number, batchTexts: number, batchRequests: number): void;
  rejected(reason: 'overloaded' | 'deadline'): void;
}

export interface DispatcherOptions {
  /** Requests allowed to wait; one more is refused with ModelOverloadedError. */
  maxQueue: number;
  /** Texts per inference task (micro-batch bound). */
  maxBatchTexts: number;
  /**
   * A request whose texts add up to at least this many characters is split into up to one piece per
   * thread (contiguous, balanced by characters); pieces of one request never share a task.
   * 0 or absent: never split.
   */
  splitChars?: number;
  observer?: DispatcherObserver;
}

type Op = 'classify' | 'entities';
type Result = number[] | Entity[][];

interface Pending {
  op: Op;
  model: string;
  texts: string[];
  enqueuedAt: number;
  timer: NodeJS.Timeout | null;
  settled: boolean;
  /** The pieces of one split request share this object (null: not split). */
  group: object | null;
  resolve(value: Result): void;
  reject(err: Error): void;
}

// How far into the queue we look for same-model requests to batch with the head: bounded so a
// dispatch stays O(1)-ish under a deep queue.
const BATCH_LOOKAHEAD = 64;

export class ModelDispatcher implements ModelClient {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private closed = false;

  constructor(
    private readonly runner: TaskRunner,
    private readonly opts: DispatcherOptions,
  ) {}

  get threads(): number {
    return this.runner.threads;
  }
  get queueDepth(): number {
    return this.queue.length;
  }
  get running(): number {
    return this.inFlight;
  }

  /** Scores for each text. @throws ModelOverloadedError, ModelDeadlineError, ModelUnavailableError */
  classify(model: string, texts: string[], deadlineAt: number): Promise<number[]> {
    return this.enqueue('classify', model, texts, deadlineAt) as Promise<number[]>;
  }

  /** Entities for each text. @throws ModelOverloadedError, ModelDeadlineError, ModelUnavailableError */
  entities(model: string, texts: string[], deadlineAt: number): Promise<Entity[][]> {
    return this.enqueue('entities', model, texts, deadlineAt) as Promise<Entity[][]>;
  }

  /**
   * Holds one warm-up task on every thread at once, so each thread has loaded its models and run
   * them once. Returns the model ids loaded (per thread, deduplicated).
   */
  async warmup(timeoutMs: number): Promise<string[]> {
    const replies = await this.onEveryThread('warmup', timeoutMs);
    const loaded = new Set<string>();
    for (const r of replies) {
      if (!r.ok) throw new Error(`worker warm-up failed: ${r.message}`);
      if ('loaded' in r) for (const id of r.loaded) loaded.add(id);
    }
    return [...loaded];
  }

  /**
   * Refuses new work, fails what still waits, lets running tasks finish, has every thread free its
   * onnxruntime sessions (terminating a thread that holds one aborts the process), then ends the pool.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0))
      this.settle(p, new ModelUnavailableError('pool_closed', 'the model pool is shutting down'));
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
    await this.onEveryThread('release', 10_000).catch(() => undefined);
    await this.runner.destroy();
  }

  /** One task per thread at once: the shared barrier holds each task until every thread has one. */
  private onEveryThread(op: 'warmup' | 'release', timeoutMs: number): Promise<ModelReply[]> {
    const barrier = new SharedArrayBuffer(4);
    const threads = this.runner.threads;
    return Promise.all(Array.from({ length: threads }, () => this.runner.run({ op, barrier, threads, timeoutMs })));
  }

  private enqueue(op: Op, model: string, texts: string[], deadlineAt: number): Promise<Result> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new ModelUnavailableError('pool_closed', 'the model pool is shutting down'));
    const pieces = this.split(texts);
    if (this.queue.length + pieces.length > this.opts.maxQueue) {
      this.opts.observer?.rejected('overloaded');
      // Roughly how long the queue takes to drain at one batch per thread per ~10 ms, at least 1 s.
      return Promise.reject(new ModelOverloadedError(Math.max(1, Math.ceil(this.queue.length / (this.threads * 100)))));
    }
    if (pieces.length === 1) return this.wait(op, model, texts, deadlineAt, null);
    const group = {};
    return Promise.all(pieces.map((piece) => this.wait(op, model, piece, deadlineAt, group))).then(
      (results) => (results as unknown[][]).flat() as Result,
    );
  }

  /** The texts as one piece, or (large enough, several threads) as one contiguous piece per thread, balanced by characters. */
  private split(texts: string[]): string[][] {
    const min = this.opts.splitChars ?? 0;
    const k = Math.min(this.threads, texts.length);
    if (min <= 0 || k < 2) return [texts];
    let total = 0;
    for (const t of texts) total += t.length;
    if (total < min) return [texts];
    const pieces: string[][] = [];
    let current: string[] = [];
    let chars = 0;
    let done = 0;
    texts.forEach((t, i) => {
      current.push(t);
      chars += t.length;
      // Close this piece at its share of what is left, keeping a text for each piece still to come.
      const left = k - pieces.length;
      if (left > 1 && (chars >= (total - done) / left || texts.length - i - 1 < left)) {
        pieces.push(current);
        done += chars;
        current = [];
        chars = 0;
      }
    });
    if (current.length > 0) pieces.push(current);
    return pieces;
  }

  private wait(op: Op, model: string, texts: string[], deadlineAt: number, group: object | null): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const p: Pending = {
        op,
        model,
        texts,
        enqueuedAt: performance.now(),
        timer: null,
        settled: false,
        group,
        resolve,
        reject,
      };
      const wait = deadlineAt - Date.now();
      p.timer = setTimeout(
        () => {
          this.opts.observer?.rejected('deadline');
          const i = this.queue.indexOf(p);
          if (i >= 0) this.queue.splice(i, 1);
          this.settle(p, new ModelDeadlineError());
        },
        Math.max(0, wait),
      );
      this.queue.push(p);
      this.pump();
    });
  }

  private settle(p: Pending, outcome: Error | Result): void {
    if (p.settled) return;
    p.settled = true;
    if (p.timer) clearTimeout(p.timer);
    if (outcome instanceof Error) p.reject(outcome);
    else p.resolve(outcome);
  }

  /**
   * Takes the oldest request and, within the text budget, the waiting requests behind it — for any
   * model: one task carries one part per (op, model), so a scan's three model calls and its
   * neighbours' share one thread hop.
   */
  private pump(): void {
    while (this.inFlight < this.runner.threads && this.queue.length > 0) {
      const head = this.queue.shift()!;
      const batch = [head];
      const groups = head.group ? [head.group] : [];
      let texts = head.texts.length;
      for (let i = 0; i < this.queue.length && i < BATCH_LOOKAHEAD && texts < this.opts.maxBatchTexts;) {
        const c = this.queue[i]!;
        // Two pieces of one split request in one task would undo the split.
        if (texts + c.texts.length <= this.opts.maxBatchTexts && !(c.group && groups.includes(c.group))) {
          batch.push(c);
          if (c.group) groups.push(c.group);
          texts += c.texts.length;
          this.queue.splice(i, 1);
        } else i++;
      }
      this.opts.observer?.dispatched(performance.now() - head.enqueuedAt, texts, batch.length);
      this.inFlight++;
      void this.execute(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async execute(batch: Pending[]): Promise<void> {
    // Group by (op, model), keeping each request's slice of its part.
    const parts: InferencePart[] = [];
    const where: { part: number; at: number }[] = [];
    const index = new Map<string, number>();
    for (const p of batch) {
      const key = `${p.op}\u0000${p.model}`;
      let i = index.get(key);
      if (i === undefined) {
        i = parts.push({ op: p.op, model: p.model, texts: [] }) - 1;
        index.set(key, i);
      }
      where.push({ part: i, at: parts[i]!.texts.length });
      parts[i]!.texts.push(...p.texts);
    }
    let reply: ModelReply;
    try {
      reply = await this.runner.run({ op: 'infer', parts });
    } catch (err) {
      const e = new ModelUnavailableError('worker_crashed', `model worker failed: ${(err as Error).message}`);
      for (const p of batch) this.settle(p, e);
      return;
    }
    batch.forEach((p, k) => {
      const { part, at } = where[k]!;
      const r = reply.ok && 'parts' in reply ? reply.parts[part] : reply;
      if (!r || !r.ok) {
        const code = r && !r.ok ? r.code : 'inference_failed';
        this.settle(
          p,
          new ModelUnavailableError(
            code === 'model_not_loaded' ? 'model_not_loaded' : 'inference_failed',
            r && !r.ok ? r.message : 'malformed worker reply',
          ),
        );
        return;
      }
      const all: Result = 'scores' in r ? r.scores : 'entities' in r ? r.entities : [];
      this.settle(p, all.slice(at, at + p.texts.length) as Result);
    });
  }
}
