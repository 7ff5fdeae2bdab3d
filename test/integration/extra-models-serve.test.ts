import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import {
  ALWAYS_LOW,
  extraModelsDir,
  IDENTITY,
  NAME_LABEL,
  PLANTED_NAME,
  stackBounds,
  TRIGGER,
} from './extra-models-fixture.ts';

/**
 * Operators' models through the HTTP API, on a real pool (one thread, real onnxruntime): `guard` stacked onto
 * prompt injection (identity anchors on prompt surfaces, always decided low on document ones), `names`
 * merged into pii, `broken` (a model.onnx that is not a model) declared for toxicity.
 */
const TOKEN = 'metrics-token-0123456789';
let app: TestApp;
let org: TestOrg;
let logLines: string[];

beforeAll(async () => {
  const dir = extraModelsDir({ guard: { prompt: IDENTITY, document: ALWAYS_LOW }, names: true, broken: true });
  logLines = [];
  app = await startTestApp({
    logLines,
    env: {
      WORKER_THREADS: '1',
      EXTRA_MODELS_DIR: dir,
      METRICS_ENABLED: 'true',
      METRICS_TOKEN: TOKEN,
      LOG_LEVEL: 'warn',
      SCAN_DEADLINE_MS: '60000',
    },
  });
  org = await buildOrg(app, 'Extra models');
}, 180_000);
afterAll(async () => app?.close());

interface Finding {
  detector: string;
  score: number;
  items: { label: string; source: string; span: [number, number]; text: string }[];
  note?: string;
}

/** A scan over the stream, whose `detector` events carry each detector's score and note: the findings by detector. */
async function scan(t: string, tier: string, surface = 'user_message', detectors?: string[]) {
  const res = await fetch(`${app.baseUrl}/v1/scans`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.admin}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      kind: 'content',
      surface,
      content: { type: 'text', text: t },
      options: { tier, ...(detectors ? { detectors } : {}) },
    }),
  });
  expect(res.status).toBe(200);
  const found = new Map<string, Finding>();
  for (const block of (await res.text()).split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    expect(event, block).not.toBe('error');
    if (event === 'detector' && data) found.set((JSON.parse(data) as Finding).detector, JSON.parse(data) as Finding);
  }
  return found;
}
const finding = (found: Map<string, Finding>, detector: string) => found.get(detector)!;

async function runs(stage: string, tier: string): Promise<number> {
  const r = await call(app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  const metric = `cf_extra_model_runs_total{model="guard",tier="${tier}",stage="${stage}"}`;
  const line = r.text.split('\n').find((l) => l.startsWith(metric));
  return line ? Number(line.slice(metric.length)) : 0;
}

const PLAIN = 'Could you tell me when the library opens on Saturday mornings?';
const PLANTED = `Could you tell me when the library opens on Saturday mornings? ${TRIGGER} ${TRIGGER} ${TRIGGER}`;

describe('extra models: served', () => {
  it('the pool loaded the good ones; the catalog names each model, its version and how it is used', async () => {
    expect(app.scanning.loadedModels).toEqual(expect.arrayContaining(['guard', 'names']));
    expect(app.scanning.loadedModels).not.toContain('broken');
    expect(app.scanning.extraModels.map((m) => m.name).sort()).toEqual(['broken', 'guard', 'names']);
    expect(logLines.join('')).toMatch(/"model":"broken"[^\n]*extra model did not load/);
    const r = await call(app, 'GET', '/v1/detectors', { key: org.admin });
    expect(r.status).toBe(200);
    const model = (n: string) => r.body.data.find((d: { name: string }) => d.name === n).model as string;
    expect(model('prompt_injection')).toMatch(/; guard@2\.0 \(stacked: accurate; auto when undecided\)$/);
    expect(model('toxicity')).toMatch(
      /; broken@0\.1 \(stacked: accurate; auto when undecided; not loaded: scans fall back\)$/,
    );
    expect(model('pii')).toMatch(/; names@1\.0 \(entities: accurate, auto\)$/);
    const pi = r.body.data.find((d: { name: string }) => d.name === 'prompt_injection');
    expect(pi.threshold_false_alarm_rates).toEqual({ warn_above: 0.05, flag_above: 0.02, block_above: 0.005 });
  });

  it("accurate stacks the model's score: the planted trigger raises it, and the item names the model", async () => {
    const [plainRaw, plantedRaw] = [
      await app.scanning.scoreExtra('guard', PLAIN, 'user_message'),
      await app.scanning.scoreExtra('guard', PLANTED, 'user_message'),
    ];
    expect(plantedRaw).toBeGreaterThan(plainRaw);
    const before = await runs('full', 'accurate');
    const plain = finding(await scan(PLAIN, 'accurate', 'user_message', ['prompt_injection']), 'prompt_injection');
    const planted = finding(await scan(PLANTED, 'accurate', 'user_message', ['prompt_injection']), 'prompt_injection');
    expect(await runs('full', 'accurate')).toBe(before + 2);
    // the detector's own weight is tiny: the published score is the model's, within its reach
    for (const [f, raw] of [
      [plain, plainRaw],
      [planted, plantedRaw],
    ] as const) {
      const [lo, hi] = stackBounds(raw);
      expect(f.score).toBeGreaterThanOrEqual(lo - 1e-6);
      expect(f.score).toBeLessThanOrEqual(hi + 1e-6);
      expect(f.note).toBeUndefined();
    }
    expect(planted.score).toBeGreaterThan(plain.score);
    // the fixture's trigger carries the model above warn, its absence leaves it below
    expect(planted.score).toBeGreaterThan(0.5);
    expect(plain.score).toBeLessThanOrEqual(0.5);
    expect(plain.items.filter((i) => i.label === 'prompt_injection')).toEqual([]);
    const item = planted.items.find((i) => i.label === 'prompt_injection')!;
    expect(item.source).toBe('model:guard@2.0');
    expect(PLANTED.slice(item.span[0], item.span[1])).toContain(TRIGGER);
  });

  it('auto runs the model where the stack is undecided without it, and not where the calibration decides', async () => {
    const [full, low] = [await runs('full', 'auto'), await runs('early_low', 'auto')];
    // prompt surfaces: identity anchors, the stack spans warn whatever the model says → it runs
    const prompt = finding(await scan(PLANTED, 'auto', 'user_message', ['prompt_injection']), 'prompt_injection');
    expect(await runs('full', 'auto')).toBe(full + 1);
    const [lo, hi] = stackBounds(await app.scanning.scoreExtra('guard', PLANTED, 'user_message'));
    expect(prompt.score).toBeGreaterThanOrEqual(lo - 1e-6);
    expect(prompt.score).toBeLessThanOrEqual(hi + 1e-6);
    // document surfaces: even at its upper logit the stack stays at or below warn → decided without it
    const doc = finding(await scan(PLANTED, 'auto', 'tool_result', ['prompt_injection']), 'prompt_injection');
    expect(await runs('early_low', 'auto')).toBe(low + 1);
    expect(await runs('full', 'auto')).toBe(full + 1);
    expect(doc.score).toBeLessThanOrEqual(0.5);
    expect(doc.items.filter((i) => i.label === 'prompt_injection')).toEqual([]);
    // fast: the detector alone
    const fast = await runs('full', 'fast');
    await scan(PLANTED, 'fast', 'user_message', ['prompt_injection']);
    expect(await runs('full', 'fast')).toBe(fast);
  });

  it('a model.onnx that is not a model: its detector answers without it, with a note; the scan succeeds', async () => {
    const r = await scan('You are a wonderful colleague, thank you.', 'accurate', 'user_message', ['toxicity']);
    expect(finding(r, 'toxicity').note).toMatch(/extra_model=broken;reason=model_not_loaded$/);
    const m = await call(app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(m.text).toMatch(/cf_extra_model_fallbacks_total\{model="broken",reason="model_not_loaded"\} [1-9]/);
  });

  it("the token classifier's planted name is a PII item with its exact span", async () => {
    const t = `Please forward the contract to ${PLANTED_NAME} before Friday.`;
    for (const tier of ['accurate', 'auto']) {
      const pii = finding(await scan(t, tier, 'user_message', ['pii']), 'pii');
      const item = pii.items.find((i) => i.source === 'model:names@1.0')!;
      expect(item, tier).toBeDefined();
      const start = t.indexOf(PLANTED_NAME);
      expect(item.span).toEqual([start, start + PLANTED_NAME.length]);
      expect(item.text).toBe(PLANTED_NAME);
      expect(item.label).toBe(NAME_LABEL);
    }
    const fast = finding(await scan(t, 'fast', 'user_message', ['pii']), 'pii');
    expect(fast.items.some((i) => i.source.startsWith('model:names'))).toBe(false);
  });
});
