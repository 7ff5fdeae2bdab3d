// Labeled events: the append body's validation, field by field, and the 1..100 bound.
import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/harness.ts';
import { append, ev, insertRun, org, paths, redteamEv, useLabeledEventsApp } from './labeled-events-fixture.ts';

useLabeledEventsApp();

const finding = (over: Record<string, unknown> = {}) => ({
  detector: 'pii',
  items: [{ text: 'x', label: 'EMAIL_ADDRESS', confidence: 0.9, source: 'regex', span: [0, 1] }],
  ...over,
});
const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** [what, event override, the path the problem names]. Each is a 400 request.validation_failed. */
const INVALID: [string, Record<string, unknown>, string][] = [
  ['unknown source', { source: 'scraped' }, 'events.0.source'],
  ['missing observed_at', { observed_at: undefined }, 'events.0.observed_at'],
  ['observed_at not RFC 3339', { observed_at: '2026-03-01 10:00' }, 'events.0.observed_at'],
  ['observed_at without offset', { observed_at: '2026-03-01T10:00:00' }, 'events.0.observed_at'],
  ['input not a string', { input: 42 }, 'events.0.input'],
  ['input over 100,000 characters', { input: 'a'.repeat(100_001) }, 'events.0.input'],
  ['output over 100,000 characters', { output: 'a'.repeat(100_001) }, 'events.0.output'],
  ['unknown verdict', { verdict: 'maybe' }, 'events.0.verdict'],
  ['verdict_confidence below 0', { verdict_confidence: -0.01 }, 'events.0.verdict_confidence'],
  ['verdict_confidence above 1', { verdict_confidence: 1.01 }, 'events.0.verdict_confidence'],
  ['verdict_confidence a string', { verdict_confidence: '0.5' }, 'events.0.verdict_confidence'],
  ['verdict_reason over 4096', { verdict_reason: 'r'.repeat(4097) }, 'events.0.verdict_reason'],
  ['unknown severity', { severity: 'urgent' }, 'events.0.severity'],
  ['framework_refs not an array', { framework_refs: {} }, 'events.0.framework_refs'],
  ['framework ref lacking id', { framework_refs: [{ framework: 'owasp_llm' }] }, 'events.0.framework_refs.0.id'],
  [
    'framework ref with an unknown field',
    { framework_refs: [{ framework: 'owasp_llm', id: 'LLM01', url: 'x' }] },
    'events.0.framework_refs.0',
  ],
  [
    'over 32 framework refs',
    { framework_refs: many(33, (i) => ({ framework: 'owasp_llm', id: `LLM${i}` })) },
    'events.0.framework_refs',
  ],
  [
    'comparator lacking would_have_blocked',
    { comparator: { input_findings: [] } },
    'events.0.comparator.would_have_blocked',
  ],
  [
    'comparator with an unknown field',
    { comparator: { would_have_blocked: true, verdict: 'x' } },
    'events.0.comparator',
  ],
  [
    'over 100 comparator findings',
    { comparator: { would_have_blocked: true, input_findings: many(101, () => finding()) } },
    'events.0.comparator.input_findings',
  ],
  [
    'a finding item confidence above 1',
    {
      comparator: {
        would_have_blocked: false,
        response_findings: [finding({ items: [{ text: 'x', label: 'L', confidence: 2 }] })],
      },
    },
    'events.0.comparator.response_findings.0.items.0.confidence',
  ],
  [
    'a finding item text over 4096',
    {
      comparator: {
        would_have_blocked: false,
        input_findings: [finding({ items: [{ text: 'x'.repeat(4097), label: 'L', confidence: 1 }] })],
      },
    },
    'events.0.comparator.input_findings.0.items.0.text',
  ],
  ['training_consent not boolean', { training_consent: 'yes' }, 'events.0.training_consent'],
  [
    'evidence key lacking storage_key',
    { evidence_blob_keys: [{ kind: 'png' }] },
    'events.0.evidence_blob_keys.0.storage_key',
  ],
  [
    'evidence kind over 64',
    { evidence_blob_keys: [{ kind: 'k'.repeat(65), storage_key: 's' }] },
    'events.0.evidence_blob_keys.0.kind',
  ],
  [
    'over 16 evidence keys',
    { evidence_blob_keys: many(17, (i) => ({ kind: 'png', storage_key: `k${i}` })) },
    'events.0.evidence_blob_keys',
  ],
  ['an unknown event field', { colour: 'red' }, 'events.0'],
  [
    'run_id on a non-redteam source',
    { source_data: { run_id: 'rtr_01JZ0000000000000000000000' } },
    'events.0.source_data',
  ],
  ['source_data with an unknown field', { source_data: { note: 'free text' } }, 'events.0.source_data'],
];

describe('append validation', () => {
  it.each(INVALID)('rejects %s', async (_what, over, path) => {
    const r = await append({ events: [ev(over)] });
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r.body)).toContain(path);
  });

  it('names the failing event by its index', async () => {
    const r = await append({ events: [ev(), ev(), ev(), ev({ severity: 'urgent' })] });
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r.body)).toEqual(['events.3.severity']);
  });

  const RUN = 'rtr_01JZ0000000000000000000000';
  const REDTEAM_INVALID: [string, Record<string, unknown> | undefined, string][] = [
    ['no source_data', undefined, 'events.0.source_data'],
    ['a malformed run_id', { run_id: 'run-1' }, 'events.0.source_data.run_id'],
    ['a negative iteration_index', { iteration_index: -1 }, 'events.0.source_data.iteration_index'],
    ['a fractional iteration_index', { iteration_index: 1.5 }, 'events.0.source_data.iteration_index'],
    ['an empty attack_class', { attack_class: '' }, 'events.0.source_data.attack_class'],
    ['an attack_subclass over 255', { attack_subclass: 's'.repeat(256) }, 'events.0.source_data.attack_subclass'],
    ['a negative token count', { tokens_used: { prompt: -1 } }, 'events.0.source_data.tokens_used.prompt'],
    [
      'over 32 token counters',
      { tokens_used: Object.fromEntries(many(33, (i) => [`t${i}`, 1])) },
      'events.0.source_data.tokens_used',
    ],
    ['an unknown field', { notes: 'x' }, 'events.0.source_data'],
  ];
  it.each(REDTEAM_INVALID)('rejects a redteam event with %s', async (_what, patch, path) => {
    const base = redteamEv(RUN);
    const sd = base.source_data as Record<string, unknown>;
    const event =
      patch === undefined ? { ...base, source_data: undefined } : { ...base, source_data: { ...sd, ...patch } };
    const r = await append({ events: [event] });
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r.body)).toContain(path);
  });

  it('requires every redteam source_data field', async () => {
    const r = await append({ events: [ev({ source: 'redteam', source_data: { run_id: RUN } })] });
    expectProblem(r, 400, 'request.validation_failed');
    expect(paths(r.body).sort()).toEqual(
      ['attack_class', 'attack_subclass', 'corpus_entry_id', 'iteration_index', 'tokens_used'].map(
        (f) => `events.0.source_data.${f}`,
      ),
    );
  });

  it('rejects 0 and 101 events, an unknown top-level field and a missing list', async () => {
    expectProblem(await append({ events: [] }), 400, 'request.validation_failed');
    const over = await append({ events: many(101, () => ev()) });
    expectProblem(over, 400, 'request.validation_failed');
    expect(paths(over.body)).toEqual(['events']);
    expectProblem(await append({ events: [ev()], extra: 1 }), 400, 'request.validation_failed');
    expectProblem(await append({}), 400, 'request.validation_failed');
  });

  it('accepts 1 and 100 events, and every field at its bound', async () => {
    const one = await append({ events: [ev({ input: null, output: undefined })] });
    expect(one.status).toBe(201);
    expect(one.body.accepted).toBe(1);
    const hundred = await append({ events: many(100, (i) => ev({ input: `question ${i}` })) });
    expect(hundred.status).toBe(201);
    expect(hundred.body).toMatchObject({ accepted: 100 });
    expect(hundred.body.event_ids).toHaveLength(100);
    expect(new Set(hundred.body.event_ids).size).toBe(100);

    const run = await insertRun(org.orgId, false);
    const atBounds = redteamEv(run, {
      input: 'a'.repeat(100_000),
      output: 'b'.repeat(100_000),
      verdict: 'blocked',
      verdict_confidence: 1,
      verdict_reason: 'r'.repeat(4096),
      severity: 'info',
      framework_refs: many(32, (i) => ({ framework: 'f'.repeat(64), id: `${i}`.padEnd(128, 'x') })),
      comparator: {
        would_have_blocked: true,
        input_findings: many(100, () => finding()),
        response_findings: [finding({ items: [{ text: 'x'.repeat(4096), label: 'L', confidence: 0 }] })],
      },
      training_consent: true,
    });
    (atBounds.source_data as Record<string, unknown>).tokens_used = Object.fromEntries(many(32, (i) => [`t${i}`, i]));
    const r = await append({ events: [atBounds] });
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    for (const v of ['allowed', 'flagged', 'warned']) {
      expect((await append({ events: [ev({ verdict: v, verdict_confidence: 0 })] })).status).toBe(201);
    }
  });
});
