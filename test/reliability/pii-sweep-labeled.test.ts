/**
 * Labeled events, swept for raw PII (docs/reliability.md): fresh random PII values (SSN, card, e-mail,
 * phone) written into every string field a caller can write — `input`, `output`, `verdict_reason`,
 * every kind of string in `comparator` (item text, label, source, detector, framework tags), under the
 * default policy and under one that hashes — and into each identifier stored verbatim, which must be
 * refused. Then every text/JSON/bytea column of every table of the app's own database, and the
 * server's WAL written meanwhile, must hold none of them. A captured scan's random value is the
 * positive control: both sweeps must find it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, type TestOrg } from '../support/harness.ts';
import { randomPii, rawValues, type RawPii } from '../support/raw-sweep.ts';
import { REDTEAM_RUN_BODY, startReliabilityApp, type ReliabilityApp } from './fixture.ts';
import { buildHashingOrg, holdWalForTest, sweepFigures, sweepStoredWrites } from './pii-sweep.ts';
import { budgetMs, cases } from './profile.ts';

const EVENTS = cases(40, 1_000);
const BATCH = 20;

let r: ReliabilityApp;
let plain: TestOrg;
let hashing: TestOrg;
let runs: Map<string, string>;
let uploads: Map<string, string>;

/** A verified evidence upload of `org` through the API (the local backend's signed URL): its storage key. */
async function verifiedUpload(org: TestOrg): Promise<string> {
  const bytes = randomBytes(64);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const created = await call(r.app, 'POST', '/v1/evidence-uploads', {
    key: org.admin,
    json: { kind: 'screenshot', sha256, size_bytes: bytes.length },
  });
  expect(created.status, created.text.slice(0, 300)).toBe(201);
  const url = new URL(created.body.upload_url);
  const put = await fetch(`${r.app.baseUrl}${url.pathname}${url.search}`, {
    method: 'PUT',
    body: new Uint8Array(bytes),
  });
  expect(put.status).toBe(200);
  return created.body.storage_key;
}

beforeAll(async () => {
  r = await startReliabilityApp({ deliveries: false });
  plain = await buildOrg(r.app, 'Sweep plain');
  hashing = await buildHashingOrg(r.app, 'Sweep hashing');
  runs = new Map();
  uploads = new Map();
  for (const o of [plain, hashing]) {
    uploads.set(o.orgId, await verifiedUpload(o));
    const run = await call(r.app, 'POST', '/v1/redteam-runs', { key: o.admin, json: REDTEAM_RUN_BODY });
    expect(run.status, run.text.slice(0, 300)).toBe(201);
    runs.set(o.orgId, run.body.run_id);
  }
});
afterAll(async () => r?.close());

/** An event with `p` in every free-text field; a `redteam` one every other time. */
function eventWith(p: RawPii, i: number, runId: string): Record<string, unknown> {
  return {
    source: i % 2 === 0 ? 'redteam' : (['production_sample', 'feedback', 'reviewed'] as const)[i % 3],
    observed_at: '2026-11-20T10:00:00Z',
    input: `Hi, mail me at ${p.email} or call ${p.phone}.`,
    output: `Your SSN ${p.ssn} and card ${p.card} are on file.`,
    verdict: 'flagged',
    verdict_confidence: 0.9,
    verdict_reason: `flagged: ${p.email} asked to charge ${p.card} (SSN ${p.ssn}, phone ${p.phone})`,
    severity: 'high',
    framework_refs: [{ framework: 'owasp_llm', id: 'LLM02' }],
    comparator: {
      would_have_blocked: true,
      input_findings: [
        {
          detector: `pii for ${p.email}`,
          items: [
            { text: p.ssn, label: 'US_SSN', confidence: 1, source: `regex ${p.phone}`, span: [0, 11] },
            { text: p.card, label: `card ${p.card}`, confidence: 1 },
          ],
          frameworks: { owasp_llm: [`LLM02 ${p.ssn}`] },
        },
      ],
      response_findings: [
        { detector: 'pii', items: [{ text: `mail ${p.email}`, label: 'EMAIL_ADDRESS', confidence: 1 }] },
      ],
    },
    training_consent: i % 2 === 1,
    ...(i % 2 === 0
      ? {
          source_data: {
            run_id: runId,
            iteration_index: i,
            attack_class: 'pii_leak',
            attack_subclass: 'direct',
            corpus_entry_id: `pii_leak-${i}`,
            tokens_used: { prompt: 10, completion: 20 },
          },
        }
      : {}),
  };
}

/** Each identifier stored verbatim, with `value` put in it: [path in an event, the event]. */
function identifierCases(value: string, runId: string, storageKey: string): [string, Record<string, unknown>][] {
  const base = { source: 'redteam', observed_at: '2026-11-20T10:00:00Z', input: 'x' };
  const data = {
    run_id: runId,
    iteration_index: 0,
    attack_class: 'pii_leak',
    attack_subclass: 'direct',
    corpus_entry_id: 'c-1',
    tokens_used: { prompt: 1 },
  };
  return [
    ['framework_refs.0.framework', { ...base, source_data: data, framework_refs: [{ framework: value, id: 'LLM02' }] }],
    ['framework_refs.0.id', { ...base, source_data: data, framework_refs: [{ framework: 'owasp_llm', id: value }] }],
    ['source_data.attack_class', { ...base, source_data: { ...data, attack_class: value } }],
    ['source_data.attack_subclass', { ...base, source_data: { ...data, attack_subclass: value } }],
    ['source_data.corpus_entry_id', { ...base, source_data: { ...data, corpus_entry_id: value } }],
    ['source_data.tokens_used', { ...base, source_data: { ...data, tokens_used: { [value]: 3 } } }],
    [
      'evidence_blob_keys.0.kind',
      { ...base, source_data: data, evidence_blob_keys: [{ kind: value, storage_key: storageKey }] },
    ],
  ];
}

describe('labeled events: a PII sweep over every writable field', () => {
  it(
    'stores no raw value in any table or in the WAL; identifiers carrying PII are refused',
    async () => {
      const wal = await holdWalForTest(r.app.db);
      const raw: string[] = [];
      let stored = 0;
      for (let start = 0; start < EVENTS; start += BATCH) {
        const org = (start / BATCH) % 2 === 0 ? plain : hashing;
        const events = Array.from({ length: Math.min(BATCH, EVENTS - start) }, (_, k) => {
          const p = randomPii();
          raw.push(...rawValues(p));
          return eventWith(p, start + k, runs.get(org.orgId)!);
        });
        const res = await call(r.app, 'POST', '/v1/labeled-events', { key: org.admin, json: { events } });
        expect(res.status, res.text.slice(0, 300)).toBe(201);
        stored += res.body.accepted;
      }

      let refused = 0;
      for (const org of [plain, hashing]) {
        const p = randomPii();
        for (const value of [`by ${p.email}`, `ssn ${p.ssn}`, `card ${p.card}`, `call ${p.phone}`]) {
          raw.push(value.slice(value.indexOf(' ') + 1));
          for (const [path, event] of identifierCases(value, runs.get(org.orgId)!, uploads.get(org.orgId)!)) {
            const res = await call(r.app, 'POST', '/v1/labeled-events', { key: org.admin, json: { events: [event] } });
            expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(400);
            expect(res.body.code).toBe('labeled_events.identifier_contains_pii');
            expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([`events.0.${path}`]);
            refused += 1;
          }
        }
      }

      const sweep = await sweepStoredWrites(r.app, plain, raw, wal);
      const { rows } = await r.app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM labeled_events');
      expect(rows[0]!.n).toBe(stored);
      console.log(
        `pii-sweep-labeled: ${stored} events stored, ${refused} identifier appends refused, ${raw.length} raw values; ` +
          sweepFigures(sweep),
      );
    },
    budgetMs(60_000, 600_000),
  );
});
