import { describe, expect, it } from 'vitest';
import { ModelDeadlineError, ModelOverloadedError, ModelUnavailableError } from '../../engine/model-client.ts';
import { ModelDispatcher } from '../../workers/dispatcher.ts';
import type { TaskRunner } from '../../workers/pool.ts';
import type { ModelReply, ModelTask, PartReply } from '../../workers/protocol.ts';

/** A runner whose tasks finish when the test says so. */
class ScriptedRunner implements TaskRunner {
  readonly tasks: { task: ModelTask; finish(reply: ModelReply | Error): void }[] = [];
  constructor(readonly threads: number) {}
  run(task: ModelTask): Promise<ModelReply> {
    return new Promise((resolve, reject) =>
      this.tasks.push({ task, finish: (r) => (r instanceof Error ? reject(r) : resolve(r)) }),
    );
  }
  async destroy(): Promise<void> {}
}

const parts = (t: ModelTask) => (t.op === 'infer' ? t.parts : []);
const reply = (...p: PartReply[]): ModelReply => ({ ok: true, parts: p });
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
      expect(parts(t.task)).toEqual([{ op: 'classify', model: 'm', texts: [expected] }]);
      t.finish(reply({ ok: true, scores: [expected.charCodeAt(0)] }));
      await tick();
    }
    expect(await Promise.all([a, b, c])).toEqual([[97], [98], [99]]);
  });

  it('micro-batches waiting requests into one task, one part per model, and splits the results back', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 8 });
    const first = d.classify('m', ['x'], later());
    const p1 = d.classify('m', ['a', 'b'], later());
    const other = d.entities('ner', ['n'], later());
    const p2 = d.classify('m', ['c'], later());
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    expect(parts(runner.tasks[1]!.task)).toEqual([
      { op: 'classify', model: 'm', texts: ['a', 'b', 'c'] },
      { op: 'entities', model: 'ner', texts: ['n'] },
    ]);
    runner.tasks[1]!.finish(reply({ ok: true, scores: [1, 2, 3] }, { ok: true, entities: [[]] }));
    expect(await Promise.all([first, p1, p2, other])).toEqual([[0], [1, 2], [3], [[]]]);
    expect(runner.tasks).toHaveLength(2);
  });

  it('respects the text budget per task', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 2 });
    void d.classify('m', ['busy'], later());
    void d.classify('m', ['a', 'b'], later());
    void d.classify('m', ['c'], later());
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    expect(parts(runner.tasks[1]!.task)).toEqual([{ op: 'classify', model: 'm', texts: ['a', 'b'] }]);
  });

  it('splits a large request into one piece per thread, never in one task, and joins the results in order', async () => {
    const runner = new ScriptedRunner(2);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 32, splitChars: 10 });
    const texts = ['aaaa', 'bb', 'cccc', 'dd', 'eeee'];
    const doc = d.classify('m', texts, later());
    expect(runner.tasks).toHaveLength(2);
    const [first, second] = runner.tasks.map((t) => parts(t.task)[0]!.texts);
    expect([...first!, ...second!]).toEqual(texts);
    expect(Math.abs(first!.join('').length - second!.join('').length)).toBeLessThanOrEqual(4);
    runner.tasks[1]!.finish(reply({ ok: true, scores: second!.map((t) => t.length * 10) }));
    runner.tasks[0]!.finish(reply({ ok: true, scores: first!.map((t) => t.length) }));
    expect(await doc).toEqual([...first!.map((t) => t.length), ...second!.map((t) => t.length * 10)]);
  });

  it('keeps a small request whole, and pieces of a split one apart while batching them with others', async () => {
    const runner = new ScriptedRunner(2);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 32, splitChars: 10 });
    const busy = [d.classify('m', ['x'], later()), d.classify('m', ['y'], later())];
    const small = d.classify('m', ['abc', 'def'], later());
    const big = d.entities('ner', ['0123456789', '0123456789', '0123456789'], later());
    expect(runner.tasks).toHaveLength(2);
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    // The small request and the first piece of the big one share a task; the second piece waits for a thread.
    expect(parts(runner.tasks[2]!.task)).toEqual([
      { op: 'classify', model: 'm', texts: ['abc', 'def'] },
      { op: 'entities', model: 'ner', texts: ['0123456789', '0123456789'] },
    ]);
    runner.tasks[1]!.finish(reply({ ok: true, scores: [1] }));
    await tick();
    expect(parts(runner.tasks[3]!.task)).toEqual([{ op: 'entities', model: 'ner', texts: ['0123456789'] }]);
    runner.tasks[3]!.finish(reply({ ok: true, entities: [[{ start: 0, end: 1, label: 'PERSON', confidence: 1 }]] }));
    runner.tasks[2]!.finish(reply({ ok: true, scores: [2, 3] }, { ok: true, entities: [[], []] }));
    expect(await Promise.all([...busy, small, big])).toEqual([
      [0],
      [1],
      [2, 3],
      [[], [], [{ start: 0, end: 1, label: 'PERSON', confidence: 1 }]],
    ]);
  });

  it('one thread, or splitChars 0: never splits', async () => {
    for (const [threads, splitChars] of [
      [1, 10],
      [2, 0],
    ] as const) {
      const runner = new ScriptedRunner(threads);
      const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 32, splitChars });
      void d.classify('m', ['0123456789', '0123456789'], later());
      expect(runner.tasks).toHaveLength(1);
      expect(parts(runner.tasks[0]!.task)[0]!.texts).toHaveLength(2);
    }
  });

  it('refuses past maxQueue with a Retry-After hint', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 1, maxBatchTexts: 1 });
    void d.classify('m', ['running'], later());
    void d.classify('m', ['queued'], later());
    const err = await d.classify('m', ['refused'], later()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelOverloadedError);
    expect((err as ModelOverloadedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('rejects a request whose deadline passes while it waits, and never runs it', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 1 });
    void d.classify('m', ['busy'], later());
    const late = d.classify('m', ['late'], Date.now() + 20);
    await expect(late).rejects.toBeInstanceOf(ModelDeadlineError);
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    expect(runner.tasks).toHaveLength(1);
  });

  it('a crashed worker fails its whole task; a model error fails only its part; serving goes on', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 8 });
    const crashed = d.classify('m', ['a'], later());
    runner.tasks[0]!.finish(new Error('worker exited'));
    await expect(crashed).rejects.toMatchObject({ name: 'ModelUnavailableError', reason: 'worker_crashed' });
    const blocker = d.classify('m', ['z'], later());
    const missing = d.entities('gone', ['b'], later());
    const fine = d.classify('m', ['c'], later());
    runner.tasks[1]!.finish(reply({ ok: true, scores: [0.1] }));
    await blocker;
    await tick();
    runner.tasks[2]!.finish(
      reply({ ok: false, code: 'model_not_loaded', message: 'no model gone' }, { ok: true, scores: [0.5] }),
    );
    const err = await missing.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect((err as ModelUnavailableError).reason).toBe('model_not_loaded');
    expect(await fine).toEqual([0.5]);
  });
});
