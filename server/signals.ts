/**
 * Stop requests: SIGTERM/SIGINT, and in a cluster worker the primary's stop message or its
 * disappearance.
 *
 * - While a process is still starting, a request is held and acted on once start-up has finished
 *   (or unwound): without a handler the signal would kill the process at once and leave what it had
 *   opened — the embedded PostgreSQL above all — running.
 * - A signal sent to the process group (Ctrl-C in a terminal, `kill -- -PGID`, a supervisor that
 *   signals the group) reaches the server twice under `npm start`: directly, and forwarded by npm a
 *   few milliseconds later. That copy is not an operator's second request: a request within
 *   DUPLICATE_SIGNAL_MS of the first is ignored.
 * - A real second request forces the exit, and the forced exit still stops the embedded cluster
 *   this process started and lets the model threads finish the onnxruntime runs they are in
 *   (`forceExit`): exiting in the middle of one aborts the process (SIGABRT) instead of exit 1.
 */
import type { Logger } from '../lib/logger.ts';
import { stopClustersStartedHere } from '../store/embedded.ts';
import { settleModelPools } from '../workers/pool.ts';

/** The message a cluster worker gets when the primary shuts down: drain like on SIGTERM. */
export const SHUTDOWN_MESSAGE = 'content-firewall:shutdown';

/** A stop request this soon after the first is the process group's copy of it, not a new request. */
export const DUPLICATE_SIGNAL_MS = 1_000;

const SIGNALS = new Set(['SIGTERM', 'SIGINT']);

/** What a stop request means, given the ones before it. */
export type StopKind = 'first' | 'duplicate' | 'second';

/** Remembers the first stop request of a process, to tell a duplicate from an operator's second request. */
export class StopRequests {
  private first: { reason: string; at: number } | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** The first stop request so far, or null. */
  get pending(): string | null {
    return this.first?.reason ?? null;
  }

  /** Records `reason` and says what it is: the first request, a duplicate of it, or a second one. */
  classify(reason: string): StopKind {
    const now = this.now();
    if (!this.first) {
      this.first = { reason, at: now };
      return 'first';
    }
    // Only signals force an exit: a worker's stop message or lost primary adds nothing to a stop under way.
    // Within the window every request is part of the first: the group's copy of the same signal, or in a
    // cluster worker the primary's stop message and the terminal's signal, in whichever order they land.
    if (!SIGNALS.has(reason) || now - this.first.at < DUPLICATE_SIGNAL_MS) return 'duplicate';
    return 'second';
  }
}

/**
 * The longest a forced exit waits for the inference tasks running on model threads (one task: one
 * batch, or one thread's share of a long document). Past it the process exits regardless.
 */
export const FORCED_EXIT_MODEL_WAIT_MS = 30_000;

let forcing = false;

/**
 * The forced exit (an operator's second signal, a fatal error): stops every embedded PostgreSQL this process
 * started and, meanwhile, lets the running inference tasks finish (no new ones start), then exits 1.
 * Signals that arrive meanwhile are ignored, so the cluster is never left half-stopped. `before` runs
 * first (a cluster primary kills its workers).
 */
export function forceExit(logger: Logger | null, reason: string, before?: () => void): void {
  if (forcing) return;
  forcing = true;
  logger?.warn({ reason }, 'exiting now (stopping the embedded PostgreSQL first)');
  before?.();
  const models = settleModelPools(FORCED_EXIT_MODEL_WAIT_MS).then(({ running, finished }) => {
    if (!finished)
      logger?.error(
        { running, waited_ms: FORCED_EXIT_MODEL_WAIT_MS },
        'inference still running on a model thread: exiting anyway (the process may abort)',
      );
    else if (running > 0) logger?.info({ running }, 'the inference tasks that were running have finished');
  });
  void Promise.allSettled([stopClustersStartedHere(), models]).finally(() => process.exit(1));
}

/**
 * A fatal error (an uncaught exception, an unhandled rejection) ends the process through
 * `forceExit`, so it does not leave the embedded PostgreSQL behind either.
 */
export function exitOnFatalErrors(logger: Logger): void {
  process.on('uncaughtException', (err) => {
    logger.fatal({ err: { message: err.message, stack: err.stack } }, 'uncaught exception');
    forceExit(logger, 'uncaught exception');
  });
}

export interface HeldSignals {
  /** The stop requests so far; keep classifying with it after release, so a copy of a held signal stays a duplicate. */
  readonly requests: StopRequests;
  /** Stops holding (the caller installs its own handlers) and returns the request received meanwhile. */
  release(): string | null;
}

/** `worker`: also hold the cluster primary's stop message and a lost connection to it. */
export function holdSignals(worker: boolean, logger: Logger | null = null): HeldSignals {
  const requests = new StopRequests();
  const hold = (reason: string) => {
    if (requests.classify(reason) === 'second') forceExit(logger, reason);
  };
  const onTerm = () => hold('SIGTERM');
  const onInt = () => hold('SIGINT');
  const onMessage = (m: unknown) => m === SHUTDOWN_MESSAGE && hold('cluster shutdown');
  const onDisconnect = () => hold('primary gone');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  if (worker) {
    process.on('message', onMessage);
    process.on('disconnect', onDisconnect);
  }
  return {
    requests,
    release() {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      process.off('message', onMessage);
      process.off('disconnect', onDisconnect);
      return requests.pending;
    },
  };
}
