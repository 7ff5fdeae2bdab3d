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

export function createModelPool(opts: PoolOptions): TaskRunner {
  // Before the first thread starts: each thread's copy of the environment is taken then.
  disableOrtTelemetry();
  const workerData: WorkerConfig = {
    models: opts.models,
    modelsDir: opts.modelsDir,
    windowCache: opts.windowCache,
    encoderPrecision: opts.encoderPrecision,
    allowCrashTask: opts.allowCrashTask,
  };
  const pool = new Piscina<ModelTask, ModelReply>({
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
  return {
    threads: opts.threads,
    run: (task) => pool.run(task),
    destroy: () => pool.destroy(),
  };
}
