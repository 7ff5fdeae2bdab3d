/**
 * Long in-process work written once as a generator that `yield`s at points where it may pause, and
 * run either to the end at once (a short text: no cost beyond a generator) or paced: a slice of at most
 * `sliceMs` per turn of the event loop, so one 500,000-character scan does not stall every other request
 * of the process (issue 36: a `fast` scan of that size held the loop for 1.5 s).
 */
import { TenantQueues } from './tenant-queues.ts';

/** Characters of text a step covers between two pauses, give or take (about 0.1–1 ms of scanning). */
export const STEP_CHARS = 16_384;

/** Work that may pause at each `yield` and finally returns a T. */
export type Steps<T> = Generator<void, T, void>;

/**
 * Turns of the event loop for paced work: ONE slice per turn, whoever's, tenants served in turn (the least
 * recently served first). However many long scans are running, a turn of the loop carries one slice of
 * them, and every request's I/O waits at most about one slice.
 */
export class SliceTurns {
  private readonly waiting = new TenantQueues<() => void>();
  private scheduled = false;

  /** Resolves when it is this tenant's slice's turn (a later turn of the event loop). */
  next(tenant: string): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(tenant, resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      // its slice runs in this turn's microtasks; a slice asking for its next turn queues for the next one
      this.waiting.take()?.();
      if (this.waiting.size > 0) this.schedule();
    });
  }
}

/** How to run steps: paced slices of `sliceMs`, one per turn given by `turns`, stopped early when `signal` aborts. */
export interface Pace {
  sliceMs: number;
  turns: SliceTurns;
  /** Whose work (slices of tenants take turns). */
  tenant: string;
  signal?: AbortSignal;
}

/** Runs the steps to the end now. */
export function runNow<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs the steps a slice of at most `pace.sliceMs` per turn (pace.turns), the event loop turning between
 * slices: pending I/O of other requests runs first.
 * @throws the signal's reason (or an Error) when it aborts between two slices
 */
export async function runPaced<T>(steps: Steps<T>, pace: Pace): Promise<T> {
  for (;;) {
    await pace.turns.next(pace.tenant);
    if (pace.signal?.aborted) {
      steps.return(undefined as never);
      throw pace.signal.reason instanceof Error ? pace.signal.reason : new Error('aborted');
    }
    const until = performance.now() + pace.sliceMs;
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      if (performance.now() >= until) break;
    }
  }
}

/** Runs the steps now, or paced when a pace is given. */
export function runSteps<T>(steps: Steps<T>, pace: Pace | undefined): T | Promise<T> {
  return pace ? runPaced(steps, pace) : runNow(steps);
}

/** `f` of a value that may still be coming: synchronous when it is already there. */
export function andThen<T, U>(value: T | Promise<T>, f: (v: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
