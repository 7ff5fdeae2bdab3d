/**
 * Our bounded, fair queue in front of the pool. Piscina's own queue starves tasks under constant
 * load, so tasks in flight never exceed the thread count and everything else waits here.
 *
 * - Fair: each tenant (organization) has its own FIFO and the tenants take turns (lib/tenant-queues.ts),
 *   so one organization's backlog costs it latency, not its neighbours; a tenant may have at most
 *   `maxTenantQueue` requests waiting.
 * - Sliced: a request is cut into pieces of about `sliceMs` of inference (whole texts, priced by
 *   inference-costs.ts), so no task holds a thread for long, a long document's pieces spread over every
 *   thread, and another tenant's small request waits at most about one slice for a thread.
 * - Abandonable: a request whose deadline passes, whose signal aborts, or one of whose pieces fails has
 *   its waiting pieces dropped at once; only the slices already running finish. A request that could
 *   not finish before its deadline even with every thread to itself is refused up front.
 * - Reserved (tenant-shares.ts): while other tenants are active, one tenant may run on at most threads − `reservedThreads`
 *   threads: a slice cannot always be short (one window of the sentence encoder's 4,000-character texts
 *   is ~40 ms), and a small request should not wait for one.
 * - Batched: the task headed by one tenant's oldest piece fills up, within the text and time budgets,
 *   with other waiting pieces in turn order, one part per (op, model): one thread hop for many scans.
 *   Requests leave in a microtask: those queued in one synchronous run (a scan's pii-ner, toxicity and
 *   pi-suffix requests) go together, one message to a thread instead of one each.
 */
import {
  abortReason,
  ModelDeadlineError,
  ModelOverloadedError,
  ModelUnavailableError,
  type ModelCall,
  type ModelClient,
} from '../engine/model-client.ts';
import type { CharLmScore } from '../inference/char-lm.ts';
import type { Entity } from '../inference/token-classifier.ts';
import { InferenceCosts } from './inference-costs.ts';
import { TenantShares } from './tenant-shares.ts';
import type { TaskRunner } from './pool.ts';
import type { InferencePart, ModelReply } from './protocol.ts';
import { TenantQueues } from '../lib/tenant-queues.ts';

export interface DispatcherObserver {
  /** A batch left the queue: how long its oldest piece waited, and how many texts and pieces it carries. */
  dispatched(waitMs: number, batchTexts: number, batchRequests: number): void;
  /** overloaded: no room (503); deadline: too late or could not be in time (504); cancelled: abandoned by the scan. */
  rejected(reason: 'overloaded' | 'deadline' | 'cancelled'): void;
}

export interface DispatcherOptions {
  /** Requests allowed to wait, all tenants together; one more is refused (ModelOverloadedError). */
  maxQueue: number;
  /** Requests one tenant may have waiting (default: `maxQueue`). */
  maxTenantQueue?: number;
  /** Texts per inference task (micro-batch bound). */
  maxBatchTexts: number;
  /** Milliseconds of inference a piece aims at (at least one text); 0 or absent: requests are not cut. */
  sliceMs?: number;
  /**
   * Threads one tenant may not take while another tenant is active (has used the pool within the last
   * second): kept free for the others' requests, so they never wait for a thread behind a long slice.
   * 0 or absent: none; never more than threads − 1.
   */
  reservedThreads?: number;
  observer?: DispatcherObserver;
}

type Op = InferencePart['op'];
type Result = number[] | Entity[][] | CharLmScore[];

interface Request {
  op: Op;
  model: string;
  tenant: string;
  /** Each piece's answer, by piece index. */
  results: Result[];
  waiting: number;
  /** Its pieces still queued, and their estimated milliseconds. */
  queuedPieces: number;
  queuedCost: number;
  settled: boolean;
  timer: NodeJS.Timeout | null;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
  resolve(value: Result): void;
  reject(err: Error): void;
}

interface Piece {
  request: Request;
  index: number;
  texts: string[];
  cost: number;
  enqueuedAt: number;
}

// Waiting pieces per tenant a filling task looks at: bounded, so a dispatch stays cheap under a deep queue.
const FILL_LOOKAHEAD = 16;
const NO_TENANT = '';
// A request is refused up front only when its optimistic estimate exceeds the time left this many times.
const DOOMED_FACTOR = 2;

export class ModelDispatcher implements ModelClient {
  private readonly queues = new TenantQueues<Piece>();
  private readonly costs = new InferenceCosts();
  private readonly shares: TenantShares;
  /** Requests with pieces still queued: in all, and per tenant with their pieces' estimated milliseconds. */
  private waiting = 0;
  private readonly backlog = new Map<string, { requests: number; ms: number }>();
  /**
   * Calls (scans, by their signal) already refused for lack of room: their other requests are refused too,
   * rather than queued for the moment it takes the scan to learn it failed.
   */
  private readonly refused = new WeakSet<AbortSignal>();
  private inFlight = 0;
  private closed = false;
  private pumpQueued = false;
  /** Why models did not load, by model id, as the threads said at warm-up. */
  readonly loadFailures = new Map<string, string>();

  constructor(
    private readonly runner: TaskRunner,
    private readonly opts: DispatcherOptions,
  ) {
    this.shares = new TenantShares(runner.threads, opts.reservedThreads ?? 0);
  }

  get threads(): number {
    return this.runner.threads;
  }
  /** Requests waiting (with pieces not yet running). */
  get queueDepth(): number {
    return this.waiting;
  }
  /** Pieces (slices) waiting. */
  get queuedPieces(): number {
    return this.queues.size;
  }
  get running(): number {
    return this.inFlight;
  }
  /** Learned inference cost per model, ms per 1,000 characters. */
  get inferenceCosts(): Record<string, number> {
    return this.costs.snapshot();
  }

  // Scores, entities, or the most surprising window of each text (ModelClient, engine/model-client.ts).
  // @throws ModelOverloadedError, ModelDeadlineError, ModelUnavailableError, ModelCancelledError
  classify(model: string, texts: string[], call: ModelCall): Promise<number[]> {
    return this.enqueue('classify', model, texts, call) as Promise<number[]>;
  }
  entities(model: string, texts: string[], call: ModelCall): Promise<Entity[][]> {
    return this.enqueue('entities', model, texts, call) as Promise<Entity[][]>;
  }
  suffix(model: string, texts: string[], call: ModelCall): Promise<CharLmScore[]> {
    return this.enqueue('suffix', model, texts, call) as Promise<CharLmScore[]>;
  }

  /** One warm-up task on every thread at once: each has loaded and run (timed) its models. The ids loaded. */
  async warmup(timeoutMs: number): Promise<string[]> {
    const replies = await this.onEveryThread('warmup', timeoutMs);
    const loaded = new Set<string>();
    for (const r of replies) {
      if (!r.ok) throw new Error(`worker warm-up failed: ${r.message}`);
      if ('loaded' in r) {
        for (const id of r.loaded) loaded.add(id);
        for (const t of r.timings) this.costs.record(t);
        for (const [id, why] of Object.entries(r.failed ?? {})) this.loadFailures.set(id, why);
      }
    }
    return [...loaded];
  }

  /**
   * Refuses new work, fails what still waits, lets running tasks finish, has every thread free its
   * onnxruntime sessions (terminating a thread that holds one aborts the process), then ends the pool.
   */
  async close(): Promise<void> {
    this.closed = true;
    const closing = new ModelUnavailableError('pool_closed', 'the model pool is shutting down');
    for (const piece of this.queues.drain()) this.settle(piece.request, closing);
    this.backlog.clear();
    this.waiting = 0;
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

  private enqueue(op: Op, model: string, texts: string[], call: ModelCall): Promise<Result> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new ModelUnavailableError('pool_closed', 'the model pool is shutting down'));
    if (call.signal?.aborted) return Promise.reject(abortReason(call.signal));
    const tenant = call.tenant ?? NO_TENANT;
    this.shares.seen(tenant);
    const backlog = this.backlog.get(tenant) ?? { requests: 0, ms: 0 };
    const full = this.waiting >= this.opts.maxQueue || backlog.requests >= this.maxTenantQueue;
    if (full || (call.signal && this.refused.has(call.signal))) {
      if (call.signal) this.refused.add(call.signal);
      this.opts.observer?.rejected('overloaded');
      // About how long this tenant's backlog takes to drain with every thread, at least 1 s.
      return Promise.reject(new ModelOverloadedError(Math.max(1, Math.ceil(backlog.ms / this.threads / 1000))));
    }
    const pieces = this.costs.cut(op, model, texts, this.opts.sliceMs ?? 0);
    const cost = pieces.reduce((sum, p) => sum + p.cost, 0);
    // Even with every thread to itself, after its own backlog, it could not be done in time by a wide margin
    // (the costs are estimates; the machine's load moves them 2–4×): refuse now, not after the threads ran.
    if ((backlog.ms + cost) / this.threads > DOOMED_FACTOR * (call.deadlineAt - Date.now())) {
      this.opts.observer?.rejected('deadline');
      return Promise.reject(new ModelDeadlineError());
    }
    return new Promise<Result>((resolve, reject) => {
      const request: Request = {
        op,
        model,
        tenant,
        results: new Array<Result>(pieces.length),
        waiting: pieces.length,
        queuedPieces: pieces.length,
        queuedCost: cost,
        settled: false,
        timer: null,
        signal: call.signal,
        onAbort: null,
        resolve,
        reject,
      };
      request.timer = setTimeout(
        () => {
          this.opts.observer?.rejected('deadline');
          this.abandon(request, new ModelDeadlineError());
        },
        Math.max(0, call.deadlineAt - Date.now()),
      );
      if (call.signal) {
        const signal = call.signal;
        request.onAbort = () => {
          this.opts.observer?.rejected('cancelled');
          this.abandon(request, abortReason(signal));
        };
        signal.addEventListener('abort', request.onAbort, { once: true });
      }
      const now = performance.now();
      pieces.forEach((p, index) =>
        this.queues.push(tenant, { request, index, texts: p.texts, cost: p.cost, enqueuedAt: now }),
      );
      this.backlog.set(tenant, { requests: backlog.requests + 1, ms: backlog.ms + cost });
      this.waiting++;
      this.pumpSoon();
    });
  }

  /**
   * Pumps once the code queuing this request has run to its end: what it queues meanwhile (the scan's other
   * detectors' requests) fills the same task; posting a task costs more than a small inference.
   */
  private pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  private get maxTenantQueue(): number {
    return this.opts.maxTenantQueue ?? this.opts.maxQueue;
  }

  /** Drops the request's waiting pieces and fails it (its running pieces finish, their answers unused). */
  private abandon(request: Request, err: Error): void {
    if (request.settled) return;
    this.queues.remove(request.tenant, (p) => p.request === request);
    this.unqueue(request, request.queuedPieces, request.queuedCost);
    this.settle(request, err);
  }

  /** `pieces` of the request, costing `cost`, left the queue (dispatched or dropped). */
  private unqueue(request: Request, pieces: number, cost: number): void {
    const backlog = this.backlog.get(request.tenant);
    if (pieces <= 0 || request.queuedPieces <= 0 || !backlog) return;
    request.queuedPieces -= pieces;
    request.queuedCost -= cost;
    backlog.ms -= cost;
    if (request.queuedPieces <= 0) {
      request.queuedPieces = 0;
      this.waiting--;
      backlog.requests--;
    }
    if (backlog.requests === 0) this.backlog.delete(request.tenant);
  }

  private settle(request: Request, outcome: Error | Result): void {
    if (request.settled) return;
    request.settled = true;
    if (request.timer) clearTimeout(request.timer);
    if (request.onAbort) request.signal?.removeEventListener('abort', request.onAbort);
    if (outcome instanceof Error) request.reject(outcome);
    else request.resolve(outcome);
  }

  /**
   * Takes the oldest piece of the tenant whose turn it is and, within the text budget and about one
   * slice of time (or that piece's own, when longer), waiting pieces of any tenant and model in turn
   * order: one task carries one part per (op, model).
   */
  private pump(): void {
    const sliceMs = this.opts.sliceMs ?? 0;
    const eligible = this.shares.eligible();
    while (this.inFlight < this.runner.threads && this.queues.size > 0) {
      const head = this.queues.take(eligible);
      // what waits belongs to tenants at their share while others are active: those threads stay free
      if (!head) return;
      const batch = [head];
      let texts = head.texts.length;
      let cost = head.cost;
      const budget = Math.max(sliceMs, head.cost);
      this.queues.fill(
        FILL_LOOKAHEAD,
        (p) => {
          if (texts >= this.opts.maxBatchTexts) return false;
          if (texts + p.texts.length > this.opts.maxBatchTexts || (sliceMs > 0 && cost + p.cost > budget)) return false;
          batch.push(p);
          texts += p.texts.length;
          cost += p.cost;
          return true;
        },
        eligible,
      );
      for (const p of batch) this.unqueue(p.request, 1, p.cost);
      const tenants = new Set(batch.map((p) => p.request.tenant));
      this.shares.started(tenants);
      this.opts.observer?.dispatched(performance.now() - head.enqueuedAt, texts, batch.length);
      this.inFlight++;
      void this.execute(batch).finally(() => {
        this.inFlight--;
        this.shares.finished(tenants);
        this.pump();
      });
    }
  }

  private async execute(batch: Piece[]): Promise<void> {
    // Group by (op, model), keeping each piece's slice of its part.
    const parts: InferencePart[] = [];
    const where: { part: number; at: number }[] = [];
    const index = new Map<string, number>();
    for (const p of batch) {
      const { op, model } = p.request;
      const key = `${op}\u0000${model}`;
      let i = index.get(key);
      if (i === undefined) {
        i = parts.push({ op, model, texts: [] }) - 1;
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
      for (const p of batch) this.abandon(p.request, e);
      return;
    }
    if (reply.ok && 'parts' in reply)
      reply.parts.forEach((r, i) => {
        if (r.ok && r.ms !== undefined) {
          const part = parts[i]!;
          let chars = 0;
          for (const t of part.texts) chars += t.length;
          this.costs.record({ op: part.op, model: part.model, chars, texts: part.texts.length, ms: r.ms });
        }
      });
    batch.forEach((p, k) => {
      const { part, at } = where[k]!;
      const r = reply.ok && 'parts' in reply ? reply.parts[part] : reply;
      if (!r || !r.ok) {
        const code = r && !r.ok ? r.code : 'inference_failed';
        this.abandon(
          p.request,
          new ModelUnavailableError(
            code === 'model_not_loaded' ? 'model_not_loaded' : 'inference_failed',
            r && !r.ok ? r.message : 'malformed worker reply',
          ),
        );
        return;
      }
      const request = p.request;
      if (request.settled) return;
      const all: Result = 'scores' in r ? r.scores : 'entities' in r ? r.entities : 'windows' in r ? r.windows : [];
      request.results[p.index] = all.slice(at, at + p.texts.length) as Result;
      if (--request.waiting === 0) this.settle(request, (request.results as unknown[][]).flat() as Result);
    });
  }
}
