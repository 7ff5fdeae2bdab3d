import { describe, expect, it } from 'vitest';
import { ModelDispatcher, ModelUnavailableError, PoolDeadlineError, PoolOverloadedError } from '../../workers/dispatcher.ts';
import type { TaskRunner } from '../../workers/pool.ts';
import type { ModelReply, ModelTask } from '../../workers/protocol.ts';

/** A runner whose tasks finish when the test says so. */
class ScriptedRunner implements TaskRunner {
  readonly tasks: { task: ModelTask; finish(reply: ModelReply | Error): void }[] = [];
  constructor(readonly threads: number) {}
  run(task: ModelTask): Promise<ModelReply> {
    return new Promise((resolve, reject) => this.tasks.push({ task, finish: (r) => (r instanceof Error ? reject(r) : resolve(r)) }));
  }
  async destroy(): Promise<void> {}
}

const texts = (t: ModelTask) => ('texts' in t ? t.texts : []);
const later = () => Date.now() + 60_000;
const tick = () => new Promise((r) => setImmediate(r));

describe('ModelDispatcher', () => {
  it('keeps in-flight tasks ≤ threads and serves the rest oldest first', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 1 });
    const a = d.classify('m', ['a'], later());
    const b = d.classify('m', ['b'], later());
    const c = d.classify('m', ['c'], later());
    expect(runner.tasks).toHaveLength(1);
    expect(d.queueDepth).toBe(2);
    for (const expected of ['a', 'b', 'c']) {
      const t = runner.tasks.at(-1)!;
      expect(texts(t.task)).toEqual([expected]);
      t.finish({ ok: true, scores: [expected.charCodeAt(0)] });
      await tick();
    }
    expect(await Promise.all([a, b, c])).toEqual([[97], [98], [99]]);
  });

  it('micro-batches waiting requests for the same model and splits the results back', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 8 });
    const first = d.classify('m', ['x'], later());
    const p1 = d.classify('m', ['a', 'b'], later());
    const other = d.entities('ner', ['n'], later());
    const p2 = d.classify('m', ['c'], later());
    runner.tasks[0]!.finish({ ok: true, scores: [0] });
    await tick();
    expect(runner.tasks[1]!.task).toEqual({ op: 'classify', model: 'm', texts: ['a', 'b', 'c'] });
    runner.tasks[1]!.finish({ ok: true, scores: [1, 2, 3] });
    await tick();
    expect(runner.tasks[2]!.task).toEqual({ op: 'entities', model: 'ner', texts: ['n'] });
    runner.tasks[2]!.finish({ ok: true, entities: [[]] });
    expect(await Promise.all([first, p1, p2, other])).toEqual([[0], [1, 2], [3], [[]]]);
  });

  it('refuses past maxQueue with a Retry-After hint', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 1, maxBatchTexts: 1 });
    void d.classify('m', ['running'], later());
    void d.classify('m', ['queued'], later());
    const err = await d.classify('m', ['refused'], later()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PoolOverloadedError);
    expect((err as PoolOverloadedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('rejects a request whose deadline passes while it waits, and never runs it', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 1 });
    void d.classify('m', ['busy'], later());
    const late = d.classify('m', ['late'], Date.now() + 20);
    await expect(late).rejects.toBeInstanceOf(PoolDeadlineError);
    runner.tasks[0]!.finish({ ok: true, scores: [0] });
    await tick();
    expect(runner.tasks).toHaveLength(1);
  });

  it('turns a crashed worker or a model error into ModelUnavailableError, and keeps serving', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 1 });
    const crashed = d.classify('m', ['a'], later());
    runner.tasks[0]!.finish(new Error('worker exited'));
    await expect(crashed).rejects.toMatchObject({ name: 'ModelUnavailableError', reason: 'worker_crashed' });
    const missing = d.classify('m', ['b'], later());
    await tick();
    runner.tasks[1]!.finish({ ok: false, code: 'model_not_loaded', message: 'no model m' });
    const err = await missing.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect((err as ModelUnavailableError).reason).toBe('model_not_loaded');
    const fine = d.classify('m', ['c'], later());
    await tick();
    runner.tasks[2]!.finish({ ok: true, scores: [0.5] });
    expect(await fine).toEqual([0.5]);
  });
});
