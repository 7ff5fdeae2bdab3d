import { describe, expect, it } from 'vitest';
import {
  ModelCancelledError,
  ModelDeadlineError,
  ModelOverloadedError,
  ModelUnavailableError,
  type ModelCall,
} from '../../engine/model-client.ts';
import { ModelDispatcher, type DispatcherOptions } from '../../workers/dispatcher.ts';
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
const later = (tenant?: string, signal?: AbortSignal): ModelCall => ({
  deadlineAt: Date.now() + 60_000,
  tenant,
  signal,
});
const texts = (t: ModelTask) => parts(t).flatMap((p) => p.texts);

/** A dispatcher whose cost model says exactly 1 ms per character (the warm-up's timing), plus 0.02 ms per text. */
async function priced(runner: ScriptedRunner, sliceMs: number, more: Partial<DispatcherOptions> = {}) {
  const d = new ModelDispatcher(runner, { maxQueue: 100, maxBatchTexts: 32, sliceMs, ...more });
  const warm = d.warmup(1_000);
  for (const t of runner.tasks.splice(0))
    t.finish({
      ok: true,
      loaded: ['m', 'ner'],
      timings: [
        { op: 'classify', model: 'm', chars: 1_000, texts: 1, ms: 1_000.02 },
        { op: 'entities', model: 'ner', chars: 1_000, texts: 1, ms: 1_000.02 },
      ],
    });
  await warm;
  return d;
}
const tick = () => new Promise((r) => setImmediate(r));
/** Lets the dispatcher's queued pump run: requests queued before this go to the threads together. */
const flush = () => Promise.resolve();

describe('ModelDispatcher', () => {
  it('keeps in-flight tasks ≤ threads and serves the rest oldest first', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 1 });
    const a = d.classify('m', ['a'], later());
    const b = d.classify('m', ['b'], later());
    const c = d.classify('m', ['c'], later());
    expect(runner.tasks).toHaveLength(0); // nothing leaves before the queuing code has run to its end
    await flush();
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
    await flush();
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

  it("sends one scan's requests of one synchronous run (pii-ner, toxicity) to an idle thread as one task", async () => {
    const runner = new ScriptedRunner(2);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 8 });
    const ner = d.entities('ner', ['n1', 'n2'], later('t'));
    const tox = d.classify('m', ['t1'], later('t'));
    await flush();
    expect(runner.tasks.map((t) => parts(t.task))).toEqual([
      [
        { op: 'entities', model: 'ner', texts: ['n1', 'n2'] },
        { op: 'classify', model: 'm', texts: ['t1'] },
      ],
    ]);
    runner.tasks[0]!.finish(reply({ ok: true, entities: [[], []] }, { ok: true, scores: [0.3] }));
    expect(await Promise.all([ner, tox])).toEqual([[[], []], [0.3]]);
  });

  it('respects the text budget per task', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 2 });
    void d.classify('m', ['busy'], later());
    await flush();
    void d.classify('m', ['a', 'b'], later());
    void d.classify('m', ['c'], later());
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    expect(parts(runner.tasks[1]!.task)).toEqual([{ op: 'classify', model: 'm', texts: ['a', 'b'] }]);
  });

  it('cuts a long request into slices of about sliceMs, spread over the threads, and joins the results in order', async () => {
    const runner = new ScriptedRunner(2);
    const d = await priced(runner, 10);
    const doc = d.classify('m', ['aaaa', 'bb', 'cccc', 'dd', 'eeee', 'f'], later());
    await flush();
    // 4 + 2 fit in 10 ms, + 4 would not: [aaaa bb] [cccc dd] [eeee f]; two threads take two slices.
    expect(runner.tasks.map((t) => texts(t.task))).toEqual([
      ['aaaa', 'bb'],
      ['cccc', 'dd'],
    ]);
    runner.tasks[1]!.finish(reply({ ok: true, scores: [3, 4] }));
    await tick();
    expect(texts(runner.tasks[2]!.task)).toEqual(['eeee', 'f']);
    runner.tasks[2]!.finish(reply({ ok: true, scores: [5, 6] }));
    runner.tasks[0]!.finish(reply({ ok: true, scores: [1, 2] }));
    expect(await doc).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('never puts two slices of one request in one task', async () => {
    const runner = new ScriptedRunner(1);
    const d = await priced(runner, 5);
    void d.classify('m', ['busy'], later());
    await flush();
    void d.classify('m', ['aaa', 'bbb', 'ccc'], later());
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    expect(texts(runner.tasks[1]!.task)).toEqual(['aaa']);
  });

  it("serves tenants in turn: a small request waits for one slice, not for another tenant's backlog", async () => {
    const runner = new ScriptedRunner(1);
    const d = await priced(runner, 2);
    const backlog = d.classify('m', ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'], later('attacker'));
    await flush();
    const small = d.classify('m', ['v'], later('victim'));
    expect(texts(runner.tasks[0]!.task)).toEqual(['a1']);
    runner.tasks[0]!.finish(reply({ ok: true, scores: [1] }));
    await tick();
    // The victim's turn comes next (alone: the attacker's slice would pass the 2 ms budget).
    expect(texts(runner.tasks[1]!.task)).toEqual(['v']);
    runner.tasks[1]!.finish(reply({ ok: true, scores: [9] }));
    expect(await small).toEqual([9]);
    for (let i = 2; i <= 6; i++) {
      await tick();
      runner.tasks.at(-1)!.finish(reply({ ok: true, scores: [i] }));
    }
    expect(await backlog).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('keeps reservedThreads free of one tenant while another is active, and gives them back when it is not', async () => {
    const runner = new ScriptedRunner(2);
    const d = await priced(runner, 2, { reservedThreads: 1 });
    // alone, a tenant takes every thread
    void d.classify('m', ['a1', 'a2', 'a3', 'a4'], later('a'));
    await flush();
    expect(runner.tasks.map((t) => texts(t.task))).toEqual([['a1'], ['a2']]);
    // another tenant appears: it gets the next free thread; while it is active, a keeps to one
    const small = d.classify('m', ['b'], later('b'));
    runner.tasks[0]!.finish(reply({ ok: true, scores: [1] }));
    await tick();
    expect(texts(runner.tasks[2]!.task)).toEqual(['b']);
    runner.tasks[2]!.finish(reply({ ok: true, scores: [9] }));
    expect(await small).toEqual([9]);
    await tick();
    // b is done but was active within the second: a's next slice waits for a's running one, not the free thread
    expect(runner.tasks).toHaveLength(3);
    runner.tasks[1]!.finish(reply({ ok: true, scores: [2] }));
    await tick();
    expect(runner.tasks.map((t) => texts(t.task))).toEqual([['a1'], ['a2'], ['b'], ['a3']]);
  });

  it('one tenant may not fill the queue: past maxTenantQueue it alone is refused', async () => {
    const runner = new ScriptedRunner(1);
    const d = await priced(runner, 2, { maxQueue: 10, maxTenantQueue: 1 });
    void d.classify('m', ['busy'], later('a'));
    await flush();
    void d.classify('m', ['a1', 'a2', 'a3'], later('a'));
    await expect(d.classify('m', ['a4'], later('a'))).rejects.toBeInstanceOf(ModelOverloadedError);
    const other = d.classify('m', ['b'], later('b'));
    expect([d.queueDepth, d.queuedPieces]).toEqual([2, 4]);
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    runner.tasks[1]!.finish(reply({ ok: true, scores: [7] }));
    expect(await other).toEqual([7]);
  });

  it('an aborted request loses its waiting slices at once; the running one finishes unused', async () => {
    const runner = new ScriptedRunner(1);
    const d = await priced(runner, 2);
    const gone = new AbortController();
    const doc = d.classify('m', ['a1', 'a2', 'a3', 'a4'], later('t', gone.signal));
    await flush();
    const next = d.classify('m', ['n'], later('t'));
    expect([d.queueDepth, d.queuedPieces]).toEqual([2, 4]);
    gone.abort();
    await expect(doc).rejects.toBeInstanceOf(ModelCancelledError);
    expect([d.queueDepth, d.queuedPieces]).toEqual([1, 1]);
    runner.tasks[0]!.finish(reply({ ok: true, scores: [1] }));
    await tick();
    expect(runner.tasks.map((t) => texts(t.task))).toEqual([['a1'], ['n']]);
    runner.tasks[1]!.finish(reply({ ok: true, scores: [2] }));
    expect(await next).toEqual([2]);
  });

  it("an abort's Error reason is what the request rejects with; an already aborted signal queues nothing", async () => {
    const runner = new ScriptedRunner(1);
    const d = await priced(runner, 2);
    const stop = new AbortController();
    stop.abort(new ModelDeadlineError());
    await expect(d.classify('m', ['x'], later('t', stop.signal))).rejects.toBeInstanceOf(ModelDeadlineError);
    expect(runner.tasks).toHaveLength(0);
  });

  it('a failed slice fails its request and drops its other slices', async () => {
    const runner = new ScriptedRunner(1);
    const d = await priced(runner, 2);
    const doc = d.classify('m', ['a1', 'a2', 'a3'], later());
    await flush();
    runner.tasks[0]!.finish(reply({ ok: false, code: 'inference_failed', message: 'boom' }));
    await expect(doc).rejects.toMatchObject({ name: 'ModelUnavailableError', reason: 'inference_failed' });
    await tick();
    expect(runner.tasks).toHaveLength(1);
    expect(d.queueDepth).toBe(0);
  });

  it('refuses at once a request that could not finish before its deadline with every thread to itself', async () => {
    const runner = new ScriptedRunner(2);
    const d = await priced(runner, 10);
    // 3,000 ms of work over 2 threads ≥ 1.5 s, more than twice the 0.6 s left (the estimates' margin)
    const doomed = d.classify('m', ['x'.repeat(1_000), 'y'.repeat(1_000), 'z'.repeat(1_000)], {
      deadlineAt: Date.now() + 600,
    });
    await expect(doomed).rejects.toBeInstanceOf(ModelDeadlineError);
    expect(runner.tasks).toHaveLength(0);
  });

  it('learns each model’s cost from the threads’ timings', async () => {
    const runner = new ScriptedRunner(1);
    const d = await priced(runner, 0);
    expect(d.inferenceCosts['classify:m']).toBe(1_000);
    const long = 'x'.repeat(2_000);
    const p = d.classify('m', [long], later());
    await flush();
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0.5], ms: 4_000.02 }));
    await p;
    // EWMA: 1 ms/char moves a fifth of the way to 2 ms/char.
    expect(d.inferenceCosts['classify:m']).toBe(1_200);
  });

  it('refuses past maxQueue with a Retry-After hint', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 1, maxBatchTexts: 1 });
    void d.classify('m', ['running'], later());
    await flush();
    void d.classify('m', ['queued'], later());
    const err = await d.classify('m', ['refused'], later()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelOverloadedError);
    expect((err as ModelOverloadedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('rejects a request whose deadline passes while it waits, and never runs it', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 1 });
    void d.classify('m', ['busy'], later());
    await flush();
    const late = d.classify('m', ['late'], { deadlineAt: Date.now() + 20 });
    await expect(late).rejects.toBeInstanceOf(ModelDeadlineError);
    runner.tasks[0]!.finish(reply({ ok: true, scores: [0] }));
    await tick();
    expect(runner.tasks).toHaveLength(1);
  });

  it('a crashed worker fails its whole task; a model error fails only its part; serving goes on', async () => {
    const runner = new ScriptedRunner(1);
    const d = new ModelDispatcher(runner, { maxQueue: 10, maxBatchTexts: 8 });
    const crashed = d.classify('m', ['a'], later());
    await flush();
    runner.tasks[0]!.finish(new Error('worker exited'));
    await expect(crashed).rejects.toMatchObject({ name: 'ModelUnavailableError', reason: 'worker_crashed' });
    const blocker = d.classify('m', ['z'], later());
    await flush();
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
