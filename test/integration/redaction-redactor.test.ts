/**
 * redactEvents on the real scan engine (a one-thread model pool: regex recognizers + pii-ner): each
 * policy obfuscation, hash tags joinable inside one organization only, offsets through non-ASCII and
 * normalised text, comparator payloads, the batch and comparator bounds, the deadline, and that no
 * raw value survives anywhere in the outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProblemError } from '../../lib/errors.ts';
import { redactEvents, type RedactionDeps, type RedactionOutcome } from '../../services/redaction/redactor.ts';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

let app: TestApp;
let deps: RedactionDeps;

beforeAll(async () => {
  app = await startTestApp({ env: { WORKER_THREADS: '1' } });
  deps = app.built.services.redaction;
});
afterAll(async () => app?.close());

const EMAIL = 'john.smith@example.com';
const PHONE = '+1 415 555 2671';
const SSN = '536-22-1234';
const NAME = 'John Smith';
const RAW = [EMAIL, PHONE, SSN, NAME, '555 2671', 'john.smith'];

const INPUT = `Hi, I am ${NAME}. Mail me at ${EMAIL} or call ${PHONE}; my SSN is ${SSN}.`;
const OUTPUT = `Sure ${NAME}, I will write to ${EMAIL}.`;
const COMPARATOR = {
  input_findings: [
    {
      detector: 'pii',
      score: 0.95,
      items: [
        { text: EMAIL, label: 'EMAIL_ADDRESS', span: [30, 52], confidence: 0.99 },
        { text: SSN, label: 'US_SSN', matched: `SSN ${SSN}`, confidence: 0.92 },
      ],
    },
  ],
  response_findings: [{ detector: 'pii', evidence: [`phone ${PHONE}`, { snippet: `name: ${NAME}` }] }],
  would_have_blocked: true,
};

const setPolicy = async (org: TestOrg, over: Record<string, unknown>) => {
  const r = await call(app, 'PUT', '/v1/org/redaction-policy', {
    key: org.admin,
    json: {
      field_rules: {},
      default_obfuscation: 'redact',
      override_allowed_for_reviewers: false,
      redaction_version: 'redactor-v1.1.0',
      ...over,
    },
  });
  expect(r.status).toBe(200);
  return r.body.policy_id as string;
};

function expectNoRaw(outcome: RedactionOutcome): void {
  const text = JSON.stringify(outcome);
  for (const raw of RAW) expect(text, raw).not.toContain(raw);
}

const HASHED = (label: string) => new RegExp(`\\[${label}:hmac:[0-9a-f]{16}\\]`, 'g');

describe('redactEvents', () => {
  it('redacts every detected span under the default policy, in input, output and the comparator', async () => {
    const org = await buildOrg(app);
    const out = await redactEvents(deps, org.orgId, [{ input: INPUT, output: OUTPUT, comparator: COMPARATOR }]);
    expect(out.redaction_policy_id).toBeNull();
    expect(out.redaction_version).toBe('redactor-v1.0.0');
    const [e] = out.events;
    expect(e!.input_redacted).toBe(
      'Hi, I am [PERSON]. Mail me at [EMAIL_ADDRESS] or call [PHONE_NUMBER]; my SSN is [US_SSN].',
    );
    expect(e!.output_redacted).toBe('Sure [PERSON], I will write to [EMAIL_ADDRESS].');
    expect(e!.comparator).toEqual({
      input_findings: [
        {
          detector: 'pii',
          score: 0.95,
          items: [
            { text: '[EMAIL_ADDRESS]', label: 'EMAIL_ADDRESS', span: [30, 52], confidence: 0.99 },
            { text: '[US_SSN]', label: 'US_SSN', matched: 'SSN [US_SSN]', confidence: 0.92 },
          ],
        },
      ],
      response_findings: [{ detector: 'pii', evidence: ['phone [PHONE_NUMBER]', { snippet: 'name: [PERSON]' }] }],
      would_have_blocked: true,
    });
    expectNoRaw(out);
  });

  it('applies a field rule to the whole field, over the label rules; label rules keep the other fields', async () => {
    const org = await buildOrg(app);
    await setPolicy(org, {
      field_rules: { input: 'hash', output: 'pass_through', comparator: 'redact', EMAIL_ADDRESS: 'hash' },
      default_obfuscation: 'redact',
    });
    const out = await redactEvents(deps, org.orgId, [
      { input: INPUT, output: OUTPUT, comparator: COMPARATOR },
      { input: INPUT, output: '' },
    ]);
    const [a, b] = out.events;
    expect(a!.input_redacted).toMatch(/^\[input:hmac:[0-9a-f]{16}\]$/);
    expect(b!.input_redacted).toBe(a!.input_redacted); // equal inputs join
    expect(a!.output_redacted).toBe(OUTPUT);
    expect(b!.output_redacted).toBe('');
    const R = '[comparator]';
    // every string value whole; keys (structure) by the label rules; numbers and booleans kept
    expect(a!.comparator).toEqual({
      input_findings: [
        {
          detector: R,
          score: 0.95,
          items: [
            { text: R, label: R, span: [30, 52], confidence: 0.99 },
            { text: R, label: R, matched: R, confidence: 0.92 },
          ],
        },
      ],
      response_findings: [{ detector: R, evidence: [R, { snippet: R }] }],
      would_have_blocked: true,
    });
    // without field rules the same policy's label rules apply to the field's spans
    await setPolicy(org, { field_rules: { EMAIL_ADDRESS: 'hash' }, default_obfuscation: 'pass_through' });
    const spans = await redactEvents(deps, org.orgId, [{ input: OUTPUT }]);
    expect(spans.events[0]!.input_redacted).toMatch(
      /^Sure John Smith, I will write to \[EMAIL_ADDRESS:hmac:[0-9a-f]{16}\]\.$/,
    );
  });

  it('applies field_rules per label (hash, pass_through) and the default to the rest, naming the policy', async () => {
    const org = await buildOrg(app);
    const policyId = await setPolicy(org, {
      field_rules: { EMAIL_ADDRESS: 'hash', US_SSN: 'hash', PERSON: 'pass_through' },
      default_obfuscation: 'redact',
    });
    const out = await redactEvents(deps, org.orgId, [{ input: INPUT, output: null }]);
    expect(out.redaction_policy_id).toBe(policyId);
    expect(out.redaction_version).toBe('redactor-v1.1.0');
    const input = out.events[0]!.input_redacted!;
    expect(input).toMatch(
      /^Hi, I am John Smith\. Mail me at \[EMAIL_ADDRESS:hmac:[0-9a-f]{16}\] or call \[PHONE_NUMBER\]; my SSN is \[US_SSN:hmac:[0-9a-f]{16}\]\.$/,
    );
    expect(out.events[0]!.output_redacted).toBeNull();
    expect(out.events[0]!.comparator).toBeNull();
    expect(input).not.toContain(EMAIL);
    expect(input).not.toContain(SSN);
  });

  it('passes everything through under pass_through by default, and hashes everything under hash', async () => {
    const open = await buildOrg(app);
    await setPolicy(open, { default_obfuscation: 'pass_through' });
    expect((await redactEvents(deps, open.orgId, [{ input: INPUT }])).events[0]!.input_redacted).toBe(INPUT);
    const hashed = await buildOrg(app);
    await setPolicy(hashed, { default_obfuscation: 'hash' });
    const out = await redactEvents(deps, hashed.orgId, [{ input: INPUT, comparator: COMPARATOR }]);
    for (const label of ['PERSON', 'EMAIL_ADDRESS', 'PHONE_NUMBER', 'US_SSN'])
      expect(out.events[0]!.input_redacted).toMatch(HASHED(label));
    expectNoRaw(out);
  });

  it('gives equal values equal hash tags inside one organization and different ones across organizations', async () => {
    const a = await buildOrg(app);
    const b = await buildOrg(app);
    for (const org of [a, b]) await setPolicy(org, { default_obfuscation: 'hash' });
    const tagsOf = async (orgId: string, texts: string[]) => {
      const out = await redactEvents(
        deps,
        orgId,
        texts.map((input) => ({ input })),
      );
      return out.events.map((e) => e.input_redacted!.match(HASHED('EMAIL_ADDRESS'))![0]);
    };
    const [a1, a2] = await tagsOf(a.orgId, [`write to ${EMAIL}`, `cc: ${EMAIL} please`]);
    const [a3] = await tagsOf(a.orgId, [`again ${EMAIL}`]);
    const [other] = await tagsOf(a.orgId, ['write to jane.doe@example.com']);
    const [b1] = await tagsOf(b.orgId, [`write to ${EMAIL}`]);
    expect(a1).toBe(a2);
    expect(a1).toBe(a3);
    expect(other).not.toBe(a1);
    expect(b1).not.toBe(a1);
  });

  it('keeps offsets right through non-ASCII text, astral characters and normalised (invisible, homoglyph) spans', async () => {
    const org = await buildOrg(app);
    const out = await redactEvents(deps, org.orgId, [
      { input: `Привет 😀 write to ${EMAIL}, 電話 ${PHONE} 🙂 fin` },
      // a zero-width space inside the address and a Cyrillic о in it: the detector reads the
      // normalised text; the replaced span is the original one, invisible character included
      { input: `😀😀 mail jоhn.sm\u200Bith@example.com — ok 👍` },
    ]);
    expect(out.events[0]!.input_redacted).toBe('Привет 😀 write to [EMAIL_ADDRESS], 電話 [PHONE_NUMBER] 🙂 fin');
    expect(out.events[1]!.input_redacted).toBe('😀😀 mail [EMAIL_ADDRESS] — ok 👍');
  });

  it('leaves texts without PII, empty texts and non-string comparator values as they are', async () => {
    const org = await buildOrg(app);
    const comparator = { would_have_blocked: false, n: 3, list: [null, true, 1.5], nested: { deep: ['plain words'] } };
    const out = await redactEvents(deps, org.orgId, [
      { input: 'what is the weather today', output: '', comparator },
      { input: null },
      {},
    ]);
    expect(out.events).toEqual([
      { input_redacted: 'what is the weather today', output_redacted: '', comparator },
      { input_redacted: null, output_redacted: null, comparator: null },
      { input_redacted: null, output_redacted: null, comparator: null },
    ]);
  });
});

describe('redactEvents: bounds and failures', () => {
  const problem = async (p: Promise<unknown>) => {
    const err = (await p.then(
      () => null,
      (e: unknown) => e,
    )) as ProblemError | null;
    expect(err).not.toBeNull();
    return err!;
  };

  it('takes 1 to 100 events', async () => {
    const org = await buildOrg(app);
    const hundred = await redactEvents(
      deps,
      org.orgId,
      Array.from({ length: 100 }, () => ({ input: INPUT })),
    );
    expect(hundred.events).toHaveLength(100);
    expectNoRaw(hundred);
    for (const n of [0, 101]) {
      const err = await problem(
        redactEvents(
          deps,
          org.orgId,
          Array.from({ length: n }, () => ({ input: 'x' })),
        ),
      );
      expect(err.code).toBe('request.validation_failed');
      expect(err.status).toBe(400);
    }
  });

  it('bounds a comparator: 32 levels deep and 50 000 strings pass, beyond is 400 naming the event', async () => {
    const org = await buildOrg(app);
    const nest = (levels: number): unknown => (levels === 0 ? `mail ${EMAIL}` : { a: nest(levels - 1) });
    const ok = await redactEvents(deps, org.orgId, [{ comparator: nest(31) }]);
    expectNoRaw(ok);
    const deep = await problem(redactEvents(deps, org.orgId, [{ input: 'x' }, { comparator: nest(33) }]));
    expect(deep.code).toBe('request.validation_failed');
    expect(JSON.stringify(deep.extra)).toContain('events.1.comparator');
    // one key and n - 1 strings (equal ones: the detector runs once for them); numbers do not count
    const wide = (n: number) => ({ list: [...Array.from({ length: n - 1 }, () => `to ${EMAIL}`), 1, 2, 3] });
    const at = await redactEvents(deps, org.orgId, [{ comparator: wide(50_000) }]);
    expectNoRaw(at);
    const tooWide = await problem(redactEvents(deps, org.orgId, [{ comparator: wide(50_001) }]));
    expect(tooWide.code).toBe('request.validation_failed');
    expect(JSON.stringify(tooWide.extra)).toContain('events.0.comparator');
  });

  it('fails with 504 redaction_policy.redactor_deadline_exceeded when the NER model misses the deadline', async () => {
    const org = await buildOrg(app);
    const long = `${'The quarterly report lists many figures and names like Maria Garcia. '.repeat(300)}`;
    const err = await problem(redactEvents({ ...deps, deadlineMs: 0 }, org.orgId, [{ input: long }]));
    expect(err.status).toBe(504);
    expect(err.code).toBe('redaction_policy.redactor_deadline_exceeded');
  });

  it('without a model pool, falls back to the regex recognizers: identifiers are still redacted', async () => {
    const bare = await startTestApp({ env: { WORKER_THREADS: '0' } });
    try {
      const org = await buildOrg(bare);
      const out = await redactEvents(bare.built.services.redaction, org.orgId, [{ input: INPUT }]);
      expect(out.events[0]!.input_redacted).toBe(
        `Hi, I am ${NAME}. Mail me at [EMAIL_ADDRESS] or call [PHONE_NUMBER]; my SSN is [US_SSN].`,
      );
    } finally {
      await bare.close();
    }
  });
});
