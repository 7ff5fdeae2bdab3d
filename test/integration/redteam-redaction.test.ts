/**
 * What red-team runs and findings keep of the PII a caller writes (docs/api.md, Redaction): the free
 * text (`scope_redacted`'s strings and keys, `verdict_reason`, findings' `title` and `description`) is
 * stored and answered redacted under the organization's policy (hashed where it says `hash`); the
 * names kept verbatim are refused with 400 `redteam.identifier_contains_pii` naming each path, never
 * the value, and nothing is stored — unless the policy passes the label through.
 */
import { describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem, type TestOrg } from '../support/harness.ts';
import { randomPii, rawValues } from '../support/raw-sweep.ts';
import {
  addFindings,
  app,
  createRun,
  finalize,
  finalizeBody,
  finding,
  newRun,
  org,
  paths,
  runBody,
  useRedteamApp,
} from './redteam-fixture.ts';

useRedteamApp();

/** The run's row and its findings' rows as stored, as text. */
async function storedText(runId: string): Promise<string> {
  const { rows } = await app.db.query(
    `SELECT (SELECT row_to_json(r)::text FROM redteam_runs r WHERE id = $1) AS run,
            (SELECT coalesce(json_agg(f), '[]')::text FROM redteam_findings f WHERE run_id = $1) AS findings`,
    [runId],
  );
  return `${rows[0].run} ${rows[0].findings}`;
}

/** An organization whose policy is `field_rules` (other labels redacted). */
async function orgWithRules(field_rules: Record<string, string>): Promise<TestOrg> {
  const o = await buildOrg(app);
  const res = await call(app, 'PUT', '/v1/org/redaction-policy', {
    key: o.admin,
    json: {
      field_rules,
      default_obfuscation: 'redact',
      override_allowed_for_reviewers: false,
      redaction_version: 'redactor-v1.0.0',
    },
  });
  expect(res.status, res.text).toBe(200);
  return o;
}

const count = async (table: string, orgId: string) =>
  (await app.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [orgId])).rows[0].n as number;

describe('free text: stored and answered redacted', () => {
  it('redacts every string of scope_redacted, object keys included, and keeps its other values', async () => {
    const p = randomPii();
    const created = await createRun(
      runBody({
        scope_redacted: {
          target: `https://app.example.com/users/${p.email}`,
          [`owner ${p.ssn}`]: [`card ${p.card}`, 3, true],
          nested: { contact: `call ${p.phone}`, probes: 12 },
        },
      }),
    );
    expect(created.status, created.text).toBe(201);
    const expected = {
      target: 'https://app.example.com/users/[EMAIL_ADDRESS]',
      'owner [US_SSN]': ['card [CREDIT_CARD]', 3, true],
      nested: { contact: 'call [PHONE_NUMBER]', probes: 12 },
    };
    expect(created.body.scope_redacted).toEqual(expected);
    const got = await call(app, 'GET', `/v1/redteam-runs/${created.body.run_id}`, { key: org.admin });
    expect(got.body.scope_redacted).toEqual(expected);
    const stored = await storedText(created.body.run_id);
    for (const v of rawValues(p)) expect(stored).not.toContain(v);
  });

  it('redacts verdict_reason', async () => {
    const p = randomPii();
    const id = await newRun();
    const done = await finalize(id, finalizeBody({ verdict_reason: `leaked ${p.email}, ${p.card} and ${p.ssn}` }));
    expect(done.status, done.text).toBe(200);
    expect(done.body.verdict_reason).toBe('leaked [EMAIL_ADDRESS], [CREDIT_CARD] and [US_SSN]');
    const got = await call(app, 'GET', `/v1/redteam-runs/${id}`, { key: org.admin });
    expect(got.body.verdict_reason).toBe('leaked [EMAIL_ADDRESS], [CREDIT_CARD] and [US_SSN]');
    const stored = await storedText(id);
    for (const v of rawValues(p)) expect(stored).not.toContain(v);
  });

  it("redacts findings' titles and descriptions", async () => {
    const p = randomPii();
    const id = await newRun();
    const added = await addFindings(id, [
      finding({ title: `Exfiltrated ${p.email}`, description: `The model read out SSN ${p.ssn} and card ${p.card}.` }),
      finding({ title: 'No PII here', description: `Call ${p.phone} for details.` }),
    ]);
    expect(added.status, added.text).toBe(201);
    const list = await call(app, 'GET', `/v1/redteam-runs/${id}/findings`, { key: org.admin });
    const texts = list.body.data.map((f: { title: string; description: string }) => [f.title, f.description]);
    expect(texts.sort()).toEqual([
      ['Exfiltrated [EMAIL_ADDRESS]', 'The model read out SSN [US_SSN] and card [CREDIT_CARD].'],
      ['No PII here', 'Call [PHONE_NUMBER] for details.'],
    ]);
    const stored = await storedText(id);
    for (const v of rawValues(p)) expect(stored).not.toContain(v);
  });

  it('hashes what the policy says to hash: equal values give equal tags', async () => {
    const p = randomPii();
    const hashing = await orgWithRules({ EMAIL_ADDRESS: 'hash' });
    const id = await newRun({}, hashing.admin);
    const added = await addFindings(
      id,
      [finding({ title: `From ${p.email}`, description: `Again ${p.email}` })],
      hashing.admin,
    );
    expect(added.status, added.text).toBe(201);
    const list = await call(app, 'GET', `/v1/redteam-runs/${id}/findings`, { key: hashing.admin });
    const [f] = list.body.data;
    const tag = /\[EMAIL_ADDRESS:hmac:[0-9a-f]{16}\]/;
    expect(f.title).toMatch(tag);
    expect(f.description).toBe(`Again ${f.title.slice('From '.length)}`);
    expect(await storedText(id)).not.toContain(p.email);
  });
});

describe('verbatim names: refused when they carry what the policy hides', () => {
  const email = () => randomPii().email;

  it.each([
    ['a model_versions name', (v: string) => ({ model_versions: { [v]: '1.0.0' } }), 'model_versions'],
    ['a model_versions version', (v: string) => ({ model_versions: { 'pi-fast': v } }), 'model_versions.pi-fast'],
    ['a corpus_hashes name', (v: string) => ({ corpus_hashes: { [v]: 'c'.repeat(64) } }), 'corpus_hashes'],
    ['a corpus_hashes hash', (v: string) => ({ corpus_hashes: { builtin: v } }), 'corpus_hashes.builtin'],
    ['redteam_version', (v: string) => ({ redteam_version: `cli ${v}` }), 'redteam_version'],
    ['operator_id', (v: string) => ({ operator_id: v }), 'operator_id'],
  ])('create: %s', async (_name, over, path) => {
    const value = email();
    const before = await count('redteam_runs', org.orgId);
    const r = await createRun(runBody(over(value)));
    expectProblem(r, 400, 'redteam.identifier_contains_pii');
    expect(r.body.errors).toEqual([
      { path, message: expect.stringMatching(/EMAIL_ADDRESS, which the redaction policy hides/) },
    ]);
    expect(r.text).not.toContain(value);
    expect(await count('redteam_runs', org.orgId)).toBe(before);
  });

  it('add findings: attack_class, remediation_class and framework refs, every path named, nothing stored', async () => {
    const p = randomPii();
    const id = await newRun();
    const r = await addFindings(id, [
      finding(),
      finding({
        attack_class: `pii ${p.ssn}`,
        remediation_class: `ask ${p.phone}`,
        framework_refs: [{ framework: p.email, id: `LLM02 ${p.card}` }],
      }),
    ]);
    expectProblem(r, 400, 'redteam.identifier_contains_pii');
    expect(paths(r)).toEqual([
      'findings.1.attack_class',
      'findings.1.remediation_class',
      'findings.1.framework_refs.0.framework',
      'findings.1.framework_refs.0.id',
    ]);
    for (const v of rawValues(p)) expect(r.text).not.toContain(v);
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM redteam_findings WHERE run_id = $1', [id]);
    expect(rows[0].n).toBe(0);
  });

  it('accepts a name whose label the policy passes through, stored as sent', async () => {
    const open = await orgWithRules({ EMAIL_ADDRESS: 'pass_through' });
    const value = email();
    const r = await createRun(runBody({ operator_id: value }), open.admin);
    expect(r.status, r.text).toBe(201);
    expect(r.body.operator_id).toBe(value);
  });
});
