import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { signWebhookPayload } from '../../client/webhook-signature.ts';
import { components } from '../../api/openapi/components.ts';
import { webhookOperations } from '../../api/openapi/webhooks.ts';
import { LATEST_API_VERSION } from '../../api/versions.ts';
import { envelope } from '../../services/webhooks/envelope.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../store/webhooks.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const ops = webhookOperations() as Record<string, { post: Json }>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'doc', components: components() }, 'doc');
const validators = new Map<WebhookEventType, ValidateFunction>();

/** The request body schema of one event's operation, its refs resolved against the document's components. */
function bodyValidator(type: WebhookEventType): ValidateFunction {
  let v = validators.get(type);
  if (!v) {
    const schema = ops[type]!.post.requestBody.content['application/json'].schema as Json;
    const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as Json;
    validators.set(type, (v = ajv.compile(rebased)));
  }
  return v;
}

function expectValid(validate: ValidateFunction, body: string): void {
  const ok = validate(JSON.parse(body));
  expect(ok, JSON.stringify(validate.errors)).toBe(true);
}

const now = new Date('2026-03-02T00:00:00.000Z');
const scanId = 'scan_01JD2Z0Q6A0000000000000001';

/** A scan as a claimed delivery carries it (`to_jsonb`: timestamps as text), captured and retained. */
const storedScan = {
  org_id: 'org_01JD2Z0Q6A0000000000000000',
  id: scanId,
  created_at: '2026-03-01T12:00:00.000Z',
  kind: 'content',
  surface: 'user_message',
  tier: 'auto',
  agent_id: 'agent-1',
  session_id: null,
  mcp_server: null,
  trace_id: null,
  end_user_id_hash: null,
  action: 'allowed',
  observed_action: 'blocked',
  decision: {
    action: 'allowed',
    reason: 'observe_mode',
    policy_id: 'pol_01JD2Z0Q6A0000000000000002',
    policy_revision_id: 'prv_01JD2Z0Q6A0000000000000003',
    matched_rule_id: 'r1',
    triggering_finding: 'pii:US_SSN',
    observed_action: 'blocked',
    observed_reason: 'rule_matched',
  },
  findings: [
    {
      detector: 'pii',
      items: [{ text: '536-22-1234', label: 'US_SSN', confidence: 0.99, source: 'regex', span: [7, 18] }],
      frameworks: { owasp_agentic: [], owasp_llm: ['LLM02:2025'], mitre_atlas: ['AML.T0057'] },
    },
  ],
  scores: { pii: 0.99, prompt_injection: 0.02 },
  content_stored: true,
  content: { type: 'text', text: 'my ssn 536-22-1234' },
  content_expires_at: '2026-03-31T12:00:00.000Z',
  content_chars: 18,
  latency_ms: 2.5,
  api_key_id: null,
  request_id: 'req-1',
  mcp_tools: null,
};

/** A claimed delivery of a scan event, as store/webhooks.ts `claimDueDeliveries` returns it. */
function scanDelivery(type: WebhookEventType, scan: Record<string, unknown> | null) {
  return {
    event_type: type,
    event_id: 'evt_01JD2Z0Q6A0000000000000001',
    event_created: new Date(storedScan.created_at),
    data: null,
    scan_id: scanId,
    scan,
  };
}

describe('the OpenAPI webhooks', () => {
  it('has one POST per event type the service delivers, signed and without a bearer', () => {
    expect(Object.keys(ops)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const { post } of Object.values(ops)) {
      expect(post.security).toEqual([]);
      const headers = (post.parameters as Json[]).map((p) => p.name as string);
      expect(headers).toEqual(expect.arrayContaining(['Service-Signature', 'Service-Event-Id', 'Service-Api-Version']));
      expect(Object.keys(post.responses as Json)).toEqual(['2XX', 'default']);
    }
  });

  it('describes what the sender builds for a scan event, compact and with content', () => {
    for (const type of ['scan.blocked', 'scan.allowed'] as const) {
      const validate = bodyValidator(type);
      expectValid(validate, envelope(scanDelivery(type, storedScan), false, LATEST_API_VERSION, now));
      expectValid(validate, envelope(scanDelivery(type, storedScan), true, LATEST_API_VERSION, now));
      // A scan deleted before the attempt still names itself.
      expectValid(validate, envelope(scanDelivery(type, null), true, LATEST_API_VERSION, now));
    }
  });

  it('is exact: a field the sender does not write, or of another type, fails', () => {
    const validate = bodyValidator('scan.blocked');
    const body = JSON.parse(envelope(scanDelivery('scan.blocked', storedScan), false, LATEST_API_VERSION, now)) as Json;
    expect(validate({ ...body, extra: 1 })).toBe(false);
    expect(validate({ ...body, data: { ...body.data, content_chars: '18' } })).toBe(false);
    expect(validate({ ...body, data: { ...body.data, decision: { ...body.data.decision, action: 'maybe' } } })).toBe(
      false,
    );
  });

  it('describes a webhook.failing event, and ties `data` to `type`', () => {
    const failing = {
      event_type: 'webhook.failing' as const,
      event_id: 'evt_01JD2Z0Q6A0000000000000009',
      event_created: now,
      scan_id: null,
      scan: null,
      data: {
        webhook_id: 'wh_01JD2Z0Q6A0000000000000004',
        url: 'https://hooks.example.com/cf',
        consecutive_failures: 5,
        threshold: 5,
        last_failure_at: now.toISOString(),
        last_error: 'receiver answered 500',
        last_status_code: 500,
        last_delivery_id: 'whd_01JD2Z0Q6A0000000000000005',
      },
    };
    const body = envelope(failing, false, LATEST_API_VERSION, now);
    expectValid(bodyValidator('webhook.failing'), body);
    expect(bodyValidator('scan.blocked')(JSON.parse(body))).toBe(false);
    const scanBody = envelope(scanDelivery('scan.blocked', storedScan), false, LATEST_API_VERSION, now);
    expect(bodyValidator('webhook.failing')(JSON.parse(scanBody))).toBe(false);
  });

  it('documents the signature header the sender writes, one v1 per secret', () => {
    const body = envelope(scanDelivery('scan.blocked', storedScan), false, LATEST_API_VERSION, now);
    const header = signWebhookPayload(body, ['whsec_new', 'whsec_old'], Math.floor(now.getTime() / 1000));
    const param = (ops['scan.blocked']!.post.parameters as Json[]).find((p) => p.name === 'Service-Signature')!;
    expect(header).toMatch(new RegExp(param.schema.pattern as string));
  });
});
