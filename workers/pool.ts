/**
 * The only place that constructs the Piscina pool. Threads are fixed (min = max) so every thread
 * loads its models once at start-up, and each runs one task at a time: our FIFO dispatcher keeps
 * in-flight tasks ≤ threads, so Piscina's own queue stays empty.
 */
import { Piscina } from 'piscina';
import { disableOrtTelemetry } from '../inference/onnx-session.ts';
import type { ModelReply, ModelTask, WorkerConfig } from './protocol.ts';

export interface PoolOptions extends WorkerConfig {
  threads: number;
}

/** What the dispatcher needs from a pool; tests may pass a small real pool of fixture workers. */
export interface TaskRunner {
  readonly threads: number;
  run(task: ModelTask): Promise<ModelReply>;
  destroy(): Promise<void>;
}

// Pools of this process not destroyed yet: a forced exit lets the tasks running on them finish first.
const openPools = new Set<{ settle(): { running: number; done: Promise<unknown> } }>();

export function createModelPool(opts: PoolOptions): TaskRunner {
  // Before the first thread starts: each thread's copy of the environment is taken then.
  disableOrtTelemetry();
  const workerData: WorkerConfig = {
    models: opts.models,
    extraModels: opts.extraModels,
    modelsDir: opts.modelsDir,
    windowCache: opts.windowCache,
    encoderPrecision: opts.encoderPrecision,
    allowCrashTask: opts.allowCrashTask,
    nice: opts.nice,
  };
  const pool = new Piscina<ModelTask, ModelReply>({
    // From the sources, workers/worker-entry.mjs (tsx, then model-worker.ts); from the compiled build,
    // dist/app/worker-entry.mjs, the bundled model-worker.ts beside this code's own bundle (decision 0012).
    filename: new URL('./worker-entry.mjs', import.meta.url).href,
    minThreads: opts.threads,
    maxThreads: opts.threads,
    concurrentTasksPerWorker: 1,
    // 'sync' parks an idle thread in Atomics.wait, which stalls onnxruntime's setImmediate-based run():
    // measured 4× lower throughput. Message events keep the worker's event loop turning.
    atomics: 'disabled',
    idleTimeout: Number.MAX_SAFE_INTEGER,
    workerData,
    // Keep model threads from competing with the event loop for the 2 cores more than they must.
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
  });
  // A worker that dies is replaced by Piscina (minThreads); its task rejects and the dispatcher
  // falls back. Without a listener the 'error' event would crash the process.
  pool.on('error', () => undefined);
  const running = new Set<Promise<ModelReply>>();
  let settling = false;
  const open = {
    settle() {
      settling = true;
      return { running: running.size, done: Promise.allSettled([...running]) };
    },
  };
  openPools.add(open);
  return {
    threads: opts.threads,
    run: (task) => {
      if (settling) return Promise.reject(new Error('the process is exiting'));
      const task$ = pool.run(task);
      running.add(task$);
      const done = () => void running.delete(task$);
      task$.then(done, done);
      return task$;
    },
    destroy: () => {
      openPools.delete(open);
      return pool.destroy();
    },
  };
}

/**
 * For an exit that skips the orderly close (a forced stop, a fatal error): refuses new tasks on
 * every model pool of this process and waits, at most `timeoutMs`, for the running ones. A process
 * that exits while onnxruntime runs a session on a worker thread aborts (SIGABRT, and a core dump
 * where cores are enabled) instead of exiting with its code; idle sessions end cleanly.
 * @returns how many tasks were running, and whether they all finished in time.
 */
export async function settleModelPools(timeoutMs: number): Promise<{ running: number; finished: boolean }> {
  const pools = [...openPools].map((p) => p.settle());
  const running = pools.reduce((n, p) => n + p.running, 0);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    const finished = await Promise.race([Promise.all(pools.map((p) => p.done)).then(() => true), timeout]);
    return { running, finished };
  } finally {
    clearTimeout(timer);
  }
}
