/**
 * Red-team runs, findings and evidence uploads, swept for raw PII (docs/reliability.md): fresh random
 * PII values (SSN, card, e-mail, phone) written into every free-text field a caller can write — a
 * run's `scope_redacted` (values, array items, nested values and object keys), its `verdict_reason`,
 * findings' `title` and `description` — under the default policy and under one that hashes, and into
 * each name stored verbatim (the run's `model_versions` and `corpus_hashes` names and values,
 * `redteam_version`, `operator_id`; findings' `attack_class`, `remediation_class`, framework refs; an
 * evidence upload's `kind`), which must be refused. No answer may carry a raw value; then every
 * text/JSON/bytea column of every table and the server's WAL written meanwhile must hold none of them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, type Reply, type TestOrg } from '../support/harness.ts';
import { randomPii, rawValues, type RawPii } from '../support/raw-sweep.ts';
import { REDTEAM_RUN_BODY, startReliabilityApp, type ReliabilityApp } from './fixture.ts';
import { buildHashingOrg, holdWalForTest, sweepFigures, sweepStoredWrites } from './pii-sweep.ts';
import { budgetMs, cases } from './profile.ts';

const RUNS = cases(10, 250);
const FINDINGS = 4;

let r: ReliabilityApp;
let plain: TestOrg;
let hashing: TestOrg;
/** A running run of each organization, which the refused findings are sent to. */
const running = new Map<string, string>();

beforeAll(async () => {
  r = await startReliabilityApp({ deliveries: false });
  plain = await buildOrg(r.app, 'Sweep red-team plain');
  hashing = await buildHashingOrg(r.app, 'Sweep red-team hashing');
  for (const o of [plain, hashing]) {
    const run = await call(r.app, 'POST', '/v1/redteam-runs', { key: o.admin, json: REDTEAM_RUN_BODY });
    expect(run.status, run.text.slice(0, 300)).toBe(201);
    running.set(o.orgId, run.body.run_id);
  }
});
afterAll(async () => r?.close());

const post = (org: TestOrg, path: string, json: unknown) => call(r.app, 'POST', path, { key: org.admin, json });

/** A run body with `p` in every string of `scope_redacted`, keys included. */
const runWith = (p: RawPii, i: number) => ({
  ...REDTEAM_RUN_BODY,
  scope_redacted: {
    target_origin: `https://app.example.com/u/${p.email}`,
    classes: ['pii_exfiltration', `owner ${p.ssn}`],
    [`contact ${p.phone}`]: { card: `card ${p.card}`, probes: i },
  },
  model_versions: { 'pi-fast': '1.0.0' },
  operator_id: `operator-${i}`,
});

/** A finding with `p` in its title and description. */
const findingWith = (p: RawPii, j: number) => ({
  attack_class: 'pii_exfiltration',
  severity: 'high',
  title: `Probe ${j} drew out ${p.email}`,
  description: `The model answered with SSN ${p.ssn}, card ${p.card} and phone ${p.phone}.`,
  framework_refs: [{ framework: 'owasp_llm', id: 'LLM02' }],
  representative_event_id: null,
  remediation_class: 'pii_policy',
});

const FINDING = findingWith({ ssn: 'x', card: 'x', email: 'x', phone: 'x' }, 0);

/** Each name stored verbatim, with `value` put in it: [its path, the call, the code its refusal carries]. */
function verbatimCases(value: string, runId: string): [string, (o: TestOrg) => Promise<Reply>, string][] {
  const create = (over: Record<string, unknown>) => (o: TestOrg) =>
    post(o, '/v1/redteam-runs', { ...REDTEAM_RUN_BODY, ...over });
  const add = (over: Record<string, unknown>) => (o: TestOrg) =>
    post(o, `/v1/redteam-runs/${runId}/findings`, { findings: [{ ...FINDING, ...over }] });
  const RT = 'redteam.identifier_contains_pii';
  return [
    ['model_versions', create({ model_versions: { [value]: '1.0.0' } }), RT],
    ['model_versions.pi-fast', create({ model_versions: { 'pi-fast': value } }), RT],
    ['corpus_hashes', create({ corpus_hashes: { [value]: 'c'.repeat(64) } }), RT],
    ['corpus_hashes.builtin', create({ corpus_hashes: { builtin: value } }), RT],
    ['redteam_version', create({ redteam_version: value }), RT],
    ['operator_id', create({ operator_id: value }), RT],
    ['findings.0.attack_class', add({ attack_class: value }), RT],
    ['findings.0.remediation_class', add({ remediation_class: value }), RT],
    ['findings.0.framework_refs.0.framework', add({ framework_refs: [{ framework: value, id: 'LLM02' }] }), RT],
    ['findings.0.framework_refs.0.id', add({ framework_refs: [{ framework: 'owasp_llm', id: value }] }), RT],
    [
      'kind',
      (o) => post(o, '/v1/evidence-uploads', { kind: value, sha256: 'a'.repeat(64), size_bytes: 10 }),
      'evidence.identifier_contains_pii',
    ],
  ];
}

describe('red-team runs, findings and evidence uploads: a PII sweep over every writable field', () => {
  it(
    'answers and stores no raw value in any table or in the WAL; names carrying PII are refused',
    async () => {
      const wal = await holdWalForTest(r.app.db);
      const raw: string[] = [];
      const clean = (res: Reply, values: string[]) => {
        for (const v of values) expect(res.text, 'an answer carries a raw value').not.toContain(v);
      };
      for (let i = 0; i < RUNS; i++) {
        const org = i % 2 === 0 ? plain : hashing;
        const p = randomPii();
        const values = rawValues(p);
        raw.push(...values);
        const run = await post(org, '/v1/redteam-runs', runWith(p, i));
        expect(run.status, run.text.slice(0, 300)).toBe(201);
        clean(run, values);
        const findings = Array.from({ length: FINDINGS }, (_, j) => findingWith(p, j));
        const added = await post(org, `/v1/redteam-runs/${run.body.run_id}/findings`, { findings });
        expect(added.status, added.text.slice(0, 300)).toBe(201);
        const listed = await call(r.app, 'GET', `/v1/redteam-runs/${run.body.run_id}/findings`, { key: org.admin });
        expect(listed.body.data).toHaveLength(FINDINGS);
        clean(listed, values);
        const reason = `missed: ${p.email} gave away ${p.ssn}, ${p.card} and ${p.phone}`;
        const done = await post(org, `/v1/redteam-runs/${run.body.run_id}:finalize`, {
          finished_at: '2026-11-20T11:00:00Z',
          verdict: 'high',
          verdict_reason: reason,
        });
        expect(done.status, done.text.slice(0, 300)).toBe(200);
        clean(done, values);
      }

      let refused = 0;
      for (const org of [plain, hashing]) {
        const p = randomPii();
        for (const value of [`by ${p.email}`, `ssn ${p.ssn}`, `card ${p.card}`, `call ${p.phone}`]) {
          const rawValue = value.slice(value.indexOf(' ') + 1);
          raw.push(rawValue);
          for (const [path, send, code] of verbatimCases(value, running.get(org.orgId)!)) {
            const res = await send(org);
            expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(400);
            expect(res.body.code).toBe(code);
            expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
            clean(res, [rawValue]);
            refused += 1;
          }
        }
      }

      const sweep = await sweepStoredWrites(r.app, plain, raw, wal);
      const count = async (table: string) =>
        (await r.app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
      expect(await count('redteam_runs')).toBe(RUNS + 2);
      expect(await count('redteam_findings')).toBe(RUNS * FINDINGS);
      expect(await count('evidence_uploads')).toBe(0);
      console.log(
        `pii-sweep-redteam: ${RUNS} runs created and finalized with ${RUNS * FINDINGS} findings, ${refused} ` +
          `refused writes of verbatim names, ${raw.length} raw values; ${sweepFigures(sweep)}`,
      );
    },
    budgetMs(60_000, 600_000),
  );
});
