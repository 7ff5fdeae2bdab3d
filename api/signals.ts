/**
 * Stop requests that arrive while a process is still starting (SIGTERM/SIGINT, and in a cluster
 * worker the primary's stop message or its disappearance). Without a handler, a signal during
 * start-up would kill the process at once and leave what it had opened — the embedded PostgreSQL
 * above all — running. Held here, the request is acted on once start-up has finished (or unwound).
 */

/** The message a cluster worker gets when the primary shuts down: drain like on SIGTERM. */
export const SHUTDOWN_MESSAGE = 'content-firewall:shutdown';

export interface HeldSignals {
  /** The first stop request received so far, or null. */
  readonly pending: string | null;
  /** Stops holding (the caller installs its own handlers) and returns the request received meanwhile. */
  release(): string | null;
}

/** `worker`: also hold the cluster primary's stop message and a lost connection to it. */
export function holdSignals(worker: boolean): HeldSignals {
  let pending: string | null = null;
  const hold = (reason: string) => {
    // As after start-up: a second signal exits at once.
    if (pending !== null && (reason === 'SIGTERM' || reason === 'SIGINT')) process.exit(1);
    pending ??= reason;
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
    get pending() {
      return pending;
    },
    release() {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      process.off('message', onMessage);
      process.off('disconnect', onDisconnect);
      return pending;
    },
  };
}
