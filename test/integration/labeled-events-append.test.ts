// Labeled events: what an append stores (redacted text only, anywhere), idempotent replay, the
// evidence and red-team run references, and a run's training consent propagating to its events.
import { describe, expect, it } from 'vitest';
import { buildOrg, call, expectProblem } from '../support/harness.ts';
import { randomPii, sweepTables } from '../support/raw-sweep.ts';
import {
  app,
  append,
  ev,
  insertEvidence,
  insertRun,
  logLines,
  org,
  paths,
  PATH,
  redteamEv,
  useLabeledEventsApp,
} from './labeled-events-fixture.ts';

useLabeledEventsApp();

const get = (id: string, key = org.admin) => call(app, 'GET', `${PATH}/${id}`, { key });

describe('append', () => {
  it('answers 201 {accepted, event_ids} and stores the row the spec lists', async () => {
    const run = await insertRun(org.orgId, false);
    const r = await append({
      events: [
        redteamEv(run, {
          observed_at: '2026-03-02T08:30:00+02:00',
          verdict: 'allowed',
          verdict_confidence: 0.25,
          verdict_reason: 'below threshold',
          severity: 'high',
          framework_refs: [{ framework: 'owasp_llm', id: 'LLM01' }],
          comparator: { would_have_blocked: false, input_findings: [], response_findings: [] },
        }),
        ev(),
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.accepted).toBe(2);
    expect(r.body.event_ids).toHaveLength(2);
    for (const id of r.body.event_ids) expect(id).toMatch(/^lev_[0-9A-HJKMNP-TV-Z]{26}$/);

    const got = await get(r.body.event_ids[0]);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(
      [
        'event_id',
        'source',
        'observed_at',
        'input_redacted',
        'output_redacted',
        'verdict',
        'verdict_confidence',
        'verdict_reason',
        'severity',
        'framework_refs',
        'comparator',
        'source_data',
        'training_consent',
        'redaction_version',
        'redaction_policy_id',
        'evidence_blob_keys',
        'created_at',
      ].sort(),
    );
    expect(got.body).toMatchObject({
      event_id: r.body.event_ids[0],
      source: 'redteam',
      observed_at: '2026-03-02T06:30:00.000Z',
      input_redacted: 'what is the weather today',
      output_redacted: 'sunny',
      verdict: 'allowed',
      verdict_confidence: 0.25,
      verdict_reason: 'below threshold',
      severity: 'high',
      framework_refs: [{ framework: 'owasp_llm', id: 'LLM01' }],
      comparator: { would_have_blocked: false, input_findings: [], response_findings: [] },
      source_data: {
        run_id: run,
        iteration_index: 0,
        attack_class: 'prompt_injection',
        attack_subclass: 'instruction_override',
        corpus_entry_id: 'corpus-1',
        tokens_used: { prompt: 10, completion: 20 },
      },
      training_consent: false,
      evidence_blob_keys: [],
    });
    expect(got.body.redaction_version).toMatch(/^redactor-v\d+\.\d+\.\d+$/);
    const plain = await get(r.body.event_ids[1]);
    expect(plain.body).toMatchObject({ source: 'feedback', source_data: null, comparator: null, severity: null });
    expect(plain.body.training_consent).toBe(false);
  });

  it("records the redaction version and policy id of the organization's policy in force", async () => {
    const o = await buildOrg(app);
    const put = await call(app, 'PUT', '/v1/org/redaction-policy', {
      key: o.admin,
      json: {
        field_rules: { EMAIL_ADDRESS: 'hash' },
        default_obfuscation: 'redact',
        override_allowed_for_reviewers: false,
        redaction_version: 'redactor-v2.3.4',
      },
    });
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    const r = await append({ events: [ev({ input: 'mail ada.lovelace.test@example.org now' })] }, o.admin);
    expect(r.status).toBe(201);
    const got = await get(r.body.event_ids[0], o.admin);
    expect(got.body).toMatchObject({ redaction_version: 'redactor-v2.3.4', redaction_policy_id: put.body.policy_id });
    expect(got.body.input_redacted).not.toContain('ada.lovelace.test@example.org');
  });

  it('applies field rules keyed by field name on append: the whole field, over the label rules', async () => {
    const o = await buildOrg(app);
    const put = await call(app, 'PUT', '/v1/org/redaction-policy', {
      key: o.admin,
      json: {
        field_rules: { output: 'pass_through', verdict_reason: 'redact', EMAIL_ADDRESS: 'hash' },
        default_obfuscation: 'redact',
        override_allowed_for_reviewers: false,
        redaction_version: 'redactor-v2.4.0',
      },
    });
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    expect(put.body.field_rules).toEqual({ output: 'pass_through', verdict_reason: 'redact', EMAIL_ADDRESS: 'hash' });
    const mail = 'ada.lovelace.test@example.org';
    const r = await append(
      { events: [ev({ input: `mail ${mail}`, output: `sent to ${mail}`, verdict_reason: 'looked fine' })] },
      o.admin,
    );
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    const got = (await get(r.body.event_ids[0], o.admin)).body;
    expect(got.input_redacted).toMatch(/^mail \[EMAIL_ADDRESS:hmac:[0-9a-f]{16}\]$/);
    expect(got.output_redacted).toBe(`sent to ${mail}`);
    expect(got.verdict_reason).toBe('[verdict_reason]');
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses another body', async () => {
    const key = `lev-${Date.now()}`;
    const first = await append({ events: [ev()] }, org.admin, { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const again = await append({ events: [ev()] }, org.admin, { 'Idempotency-Key': key });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM labeled_events WHERE id = ANY($1)', [
      first.body.event_ids,
    ]);
    expect(rows[0].n).toBe(1);
    expectProblem(
      await append({ events: [ev({ input: 'other' })] }, org.admin, { 'Idempotency-Key': key }),
      409,
      'idempotency.key_reused',
    );
  });
});

describe('raw text is never stored', () => {
  const EMAIL = 'wilhelmina.quargstone@example.com';
  const PHONE = '+1 650-253-0142';
  const SSN = '536-22-8214';
  // random: other files of the run may store the well-known test cards (a captured scan's content)
  const CARD = randomPii().card;
  const RAW = [EMAIL, PHONE, SSN, CARD];

  /** labeled_events' columns: those a caller writes (each gets a raw value below, or only an enum, number, date or minted id), and those the service sets. */
  const CALLER_WRITTEN = [
    'source',
    'observed_at',
    'input_redacted',
    'output_redacted',
    'verdict',
    'verdict_confidence',
    'verdict_reason',
    'severity',
    'framework_refs',
    'comparator',
    'source_data',
    'run_id',
    'training_consent',
    'evidence_blob_keys',
  ];
  const SERVICE_SET = ['id', 'org_id', 'redaction_version', 'redaction_policy_id', 'created_at'];

  it('knows every column of labeled_events: a new one must be added to this test', async () => {
    const { rows } = await app.db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'labeled_events'`,
    );
    expect(rows.map((r) => r.column_name).sort()).toEqual([...CALLER_WRITTEN, ...SERVICE_SET].sort());
  });

  it('redacts every free-text field (input, output, verdict_reason, comparator) and leaves no raw value in any table column or log line', async () => {
    const o = await buildOrg(app);
    const r = await append(
      {
        events: [
          ev({
            input: `Contact me at ${EMAIL} or phone ${PHONE}.`,
            output: `Your SSN ${SSN} is on file.`,
            verdict: 'flagged',
            verdict_reason: `flagged: ${EMAIL} asked to charge card ${CARD} (SSN ${SSN})`,
            comparator: {
              would_have_blocked: true,
              input_findings: [
                { detector: 'pii', items: [{ text: EMAIL, label: 'EMAIL_ADDRESS', confidence: 1, span: [14, 47] }] },
              ],
              response_findings: [
                { detector: 'pii', items: [{ text: SSN, label: 'US_SSN', confidence: 1, source: 'regex' }] },
              ],
            },
          }),
        ],
      },
      o.admin,
      { 'Idempotency-Key': `raw-${Date.now()}` },
    );
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    const got = await get(r.body.event_ids[0], o.admin);
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body)).not.toMatch(/quargstone|253-0142|536-22-8214/);
    expect(JSON.stringify(got.body)).not.toContain(CARD);
    expect(got.body.input_redacted).toContain('Contact me at');
    expect(got.body.verdict_reason).toBe('flagged: [EMAIL_ADDRESS] asked to charge card [CREDIT_CARD] (SSN [US_SSN])');

    const sweep = await sweepTables(app.db, RAW);
    expect(sweep.columns).toBeGreaterThan(0);
    expect(sweep.found).toEqual([]);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((l) => RAW.some((v) => l.includes(v)))).toEqual([]);
  });

  it('refuses an identifier stored verbatim (framework refs, source_data names, token counter names, evidence kinds) that holds PII the policy hides, naming each path, and stores nothing', async () => {
    const o = await buildOrg(app);
    const run = await insertRun(o.orgId, false);
    const evidence = await insertEvidence(o.orgId, true);
    const r = await append(
      {
        events: [
          ev(),
          redteamEv(run, {
            framework_refs: [
              { framework: `fw ${EMAIL}`, id: 'LLM01' },
              { framework: 'owasp_llm', id: `LLM01 ${SSN}` },
            ],
            source_data: {
              run_id: run,
              iteration_index: 0,
              attack_class: `class ${CARD}`,
              attack_subclass: `sub ${PHONE}`,
              corpus_entry_id: `entry-${EMAIL}`,
              tokens_used: { prompt: 1, [`by ${EMAIL}`]: 2 },
            },
            evidence_blob_keys: [{ kind: `shot of ${SSN}`, storage_key: evidence }],
          }),
        ],
      },
      o.admin,
      { 'Idempotency-Key': `raw-id-${Date.now()}` },
    );
    expectProblem(r, 400, 'labeled_events.identifier_contains_pii');
    expect(paths(r.body)).toEqual([
      'events.1.framework_refs.0.framework',
      'events.1.framework_refs.1.id',
      'events.1.source_data.attack_class',
      'events.1.source_data.attack_subclass',
      'events.1.source_data.corpus_entry_id',
      'events.1.source_data.tokens_used',
      'events.1.evidence_blob_keys.0.kind',
    ]);
    expect(r.body.errors[2].message).toContain('CREDIT_CARD');
    expect(r.text).not.toMatch(/quargstone|253-0142|536-22-8214/);
    expect(r.text).not.toContain(CARD);
    const { rows } = await app.db.query('SELECT count(*)::int AS n FROM labeled_events WHERE org_id = $1', [o.orgId]);
    expect(rows[0].n).toBe(0);
    expect((await sweepTables(app.db, RAW)).found).toEqual([]);
    expect(logLines.filter((l) => RAW.some((v) => l.includes(v)))).toEqual([]);
  });

  it('accepts an identifier whose PII the policy passes through, verbatim', async () => {
    const o = await buildOrg(app);
    const put = await call(app, 'PUT', '/v1/org/redaction-policy', {
      key: o.admin,
      json: {
        field_rules: { EMAIL_ADDRESS: 'pass_through' },
        default_obfuscation: 'redact',
        override_allowed_for_reviewers: false,
        redaction_version: 'redactor-v1.0.1',
      },
    });
    expect(put.status).toBe(200);
    const id = 'entry-owner@corpus.example.org';
    const r = await append({ events: [ev({ source_data: { corpus_entry_id: id } })] }, o.admin);
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    expect((await get(r.body.event_ids[0], o.admin)).body.source_data).toEqual({ corpus_entry_id: id });
    expectProblem(
      await append({ events: [ev({ source_data: { corpus_entry_id: `entry ${SSN}` } })] }, o.admin),
      400,
      'labeled_events.identifier_contains_pii',
    );
  });
});

describe('evidence references', () => {
  it('accepts verified keys of the organization, up to 16 per event', async () => {
    const keys = await Promise.all(Array.from({ length: 16 }, () => insertEvidence(org.orgId, true)));
    const r = await append({
      events: [ev({ evidence_blob_keys: keys.map((k) => ({ kind: 'png', storage_key: k })) })],
    });
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    expect((await get(r.body.event_ids[0])).body.evidence_blob_keys).toEqual(
      keys.map((k) => ({ kind: 'png', storage_key: k })),
    );
  });

  it('refuses an unknown, unverified or foreign key, naming each, and writes nothing', async () => {
    const other = await buildOrg(app);
    const good = await insertEvidence(org.orgId, true);
    const unverified = await insertEvidence(org.orgId, false);
    const foreign = await insertEvidence(other.orgId, true);
    const before = await app.db.query('SELECT count(*)::int AS n FROM labeled_events WHERE org_id = $1', [org.orgId]);
    const r = await append({
      events: [
        ev({ evidence_blob_keys: [{ kind: 'png', storage_key: good }] }),
        ev({
          evidence_blob_keys: [
            { kind: 'png', storage_key: good },
            { kind: 'png', storage_key: unverified },
          ],
        }),
        ev({ evidence_blob_keys: [{ kind: 'png', storage_key: 'never-uploaded' }] }),
        ev({ evidence_blob_keys: [{ kind: 'png', storage_key: foreign }] }),
      ],
    });
    expectProblem(r, 400, 'labeled_events.evidence_not_found');
    expect(paths(r.body)).toEqual([
      'events.1.evidence_blob_keys.1.storage_key',
      'events.2.evidence_blob_keys.0.storage_key',
      'events.3.evidence_blob_keys.0.storage_key',
    ]);
    const after = await app.db.query('SELECT count(*)::int AS n FROM labeled_events WHERE org_id = $1', [org.orgId]);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

describe('red-team runs', () => {
  it('refuses a run_id not of the organization, naming the event', async () => {
    const other = await buildOrg(app);
    const foreign = await insertRun(other.orgId, true);
    const mine = await insertRun(org.orgId, true);
    const r = await append({
      events: [redteamEv(mine), redteamEv('rtr_01JZ0000000000000000000000'), redteamEv(foreign)],
    });
    expectProblem(r, 400, 'labeled_events.unknown_run');
    expect(paths(r.body)).toEqual(['events.1.source_data.run_id', 'events.2.source_data.run_id']);
  });

  it("propagates the run's training consent to its events, over the event's own", async () => {
    const yes = await insertRun(org.orgId, true);
    const no = await insertRun(org.orgId, false);
    const r = await append({
      events: [
        redteamEv(yes, { training_consent: false }),
        redteamEv(no, { training_consent: true }),
        redteamEv(yes),
        ev({ training_consent: true }),
        ev(),
      ],
    });
    expect(r.status).toBe(201);
    const consent = await Promise.all(
      r.body.event_ids.map(async (id: string) => (await get(id)).body.training_consent),
    );
    expect(consent).toEqual([true, false, true, true, false]);
    const { rows } = await app.db.query('SELECT id, run_id FROM labeled_events WHERE id = ANY($1) ORDER BY id', [
      r.body.event_ids,
    ]);
    expect(rows.map((x) => x.run_id)).toEqual([yes, no, yes, null, null]);
  });
});
