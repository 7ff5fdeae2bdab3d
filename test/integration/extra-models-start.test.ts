import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ExtraModelError } from '../../inference/extra-models.ts';
import { createLogger } from '../../lib/logger.ts';
import { createMetrics, type Metrics } from '../../lib/metrics.ts';
import { startScanning, type Scanning } from '../../server/scanning.ts';
import { extraModelCounts, startEvalScanning } from '../../training/eval-scan.ts';
import { TEST_MASTER_SECRET } from '../support/harness.ts';
import { ALWAYS_HIGH, extraModelsDir, IDENTITY, tamper, TRIGGER } from './extra-models-fixture.ts';

/**
 * Operators' models through startScanning (what the server, the cluster workers, `npm run eval` and the
 * benchmarks share): a tampered file refuses the start, in-process and as `npm start` runs the compiled build;
 * started as `npm run eval` starts it, a model past its own timeout leaves the detector's result with a note,
 * and a calibration that decides high skips the model on auto.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const logger = createLogger('silent');
const config = (dir: string) => ({
  WORKER_THREADS: 0,
  POOL_QUEUE_MAX: 1024,
  POOL_MAX_BATCH: 32,
  POOL_SLICE_MS: 5,
  MODELS_DIR: undefined,
  EXTRA_MODELS_DIR: dir,
});

describe('extra models: a tampered file refuses the start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = extraModelsDir({ guard: { prompt: IDENTITY, document: IDENTITY } });
    tamper(dir, 'guard');
  }, 60_000);

  it('startScanning rejects with ExtraModelError naming the file, before any thread starts', async () => {
    const started = startScanning(config(dir), createMetrics(false), logger);
    await expect(started).rejects.toBeInstanceOf(ExtraModelError);
    await expect(started).rejects.toThrow(/guard\/model\.onnx is [0-9a-f]{64}, the declaration says [0-9a-f]{64}/);
  });

  it('the compiled server and its cluster primary exit 1 with the message, no stack trace', () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_MASTER_SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      WORKER_THREADS: '0',
      JOBS_ENABLED: 'false',
      LOG_LEVEL: 'warn',
      EXTRA_MODELS_DIR: dir,
    };
    delete env.REDIS_URL;
    for (const args of [[], ['--cluster', '2']]) {
      const r = spawnSync(process.execPath, ['dist/app/server.mjs', ...args], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toContain('content firewall failed to start:');
      expect(r.stderr).toMatch(/models\.json:\n\s+models\[0\] \(guard\): sha256 of \S+guard\/model\.onnx is/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('extra models: timeout and a calibration that decides high', () => {
  let scanning: Scanning;
  let metrics: Metrics;
  beforeAll(async () => {
    const dir = extraModelsDir({
      guard: { prompt: ALWAYS_HIGH, document: IDENTITY, timeoutMs: 10 },
    });
    // as `npm run eval` starts it: EXTRA_MODELS_DIR from the environment
    const saved = process.env.EXTRA_MODELS_DIR;
    process.env.EXTRA_MODELS_DIR = dir;
    try {
      ({ scanning, metrics } = await startEvalScanning(1, 4));
    } finally {
      if (saved === undefined) delete process.env.EXTRA_MODELS_DIR;
      else process.env.EXTRA_MODELS_DIR = saved;
    }
    expect(scanning.loadedModels).toContain('guard');
  }, 180_000);
  afterAll(async () => scanning?.close());

  const scan = (text: string, tier: 'accurate' | 'auto', surface: 'user_message' | 'document', detectors: string[]) =>
    scanning.engine.scan(
      { surface, text, tier, detectors },
      { deadlineAt: Date.now() + 120_000, tenant: 'one organization' },
    );

  it("past its own timeout_ms (queued behind the same organization's long request): the detector's result, with a note", async () => {
    // the organization's long PII scan is queued first: its slices run before the model's, in FIFO order
    const long = scan('Reach Dana Whitfield at 221B Baker Street, London. '.repeat(4_000), 'accurate', 'document', [
      'pii',
    ]);
    // a long text waits for its organization's turn at the engine first: its NER request is queued once the pool has it
    const pool = scanning.dispatcher!;
    while (pool.queueDepth + pool.running === 0) await new Promise((r) => setImmediate(r));
    const timed = scan(`Please summarise the meeting notes. ${TRIGGER}`, 'accurate', 'document', ['prompt_injection']);
    const [, outcome] = await Promise.all([long, timed]);
    const pi = outcome.runs[0]!.result;
    expect(pi.note).toMatch(/extra_model=guard;reason=timeout$/);
    expect((await extraModelCounts(metrics, 'guard', 'accurate')).fallback).toBe(1);
    const fallbacks = (await metrics.extraModelFallbacks.get()).values;
    expect(fallbacks).toContainEqual(
      expect.objectContaining({ labels: { model: 'guard', reason: 'timeout' }, value: 1 }),
    );
  });

  it('auto where even its lower logit leaves the stack above block: decided without it', async () => {
    const before = await extraModelCounts(metrics, 'guard', 'auto');
    const outcome = await scan('What time does the museum open on Sundays?', 'auto', 'user_message', [
      'prompt_injection',
    ]);
    const after = await extraModelCounts(metrics, 'guard', 'auto');
    expect(after.early_high).toBe(before.early_high + 1);
    expect(after.full).toBe(before.full);
    const pi = outcome.runs[0]!.result;
    expect(pi.score).toBeGreaterThan(0.9);
    expect(pi.note).toBeUndefined();
    expect(pi.items.find((i) => i.label === 'prompt_injection')!.source).toMatch(/;cascade=without:guard$/);
  });
});
