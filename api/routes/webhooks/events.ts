/**
 * The schemas of what the service POSTs to a webhook (docs/webhooks.md "Events and their data"): the
 * envelope `{type, id, created, api_version, data}` built by services/webhooks/envelope.ts, and each
 * event's `data`. Registered as resources, they are the request bodies of the document's `webhooks`
 * (api/openapi/webhooks.ts).
 */
import { z } from 'zod';
import { ACTIONS, SURFACES, TIERS } from '../../../engine/detector.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../services/webhooks/subscriptions.ts';
import { instant, nullableInstant, resource } from '../../resources.ts';
import { API_VERSIONS, LATEST_API_VERSION } from '../../versions.ts';
import { Scan, ScanDecision, ScanFinding } from '../scans/responses.ts';

/** A scan event's summary of the scan (services/scan-presenter.ts `presentScanEvent`). */
const scanSummary = z.object({
  scan_id: z.string(),
  created: instant.describe("The scan's `created`."),
  kind: Scan.shape.kind,
  surface: z.enum(SURFACES),
  tier: z.enum(TIERS),
  action: z.enum(ACTIONS).describe('The action the caller received (`allowed` under observe mode).'),
  // Exactly the scan's decision; under observe mode `observed_action` has the would-be action.
  decision: ScanDecision,
  scores: z.record(z.string(), z.number()).describe('Detector → score.'),
  detectors: z
    .array(
      z.object({
        detector: z.string(),
        findings: z.int().min(0).describe("How many items the detector's finding holds."),
        labels: z.array(z.string()).describe('Their distinct labels.'),
      }),
    )
    .describe('Per detector that found something: counts and labels, never the matched text.'),
  context: Scan.shape.context,
  content_chars: z.int().min(0),
  content_stored: z.boolean(),
  latency_ms: z.number().min(0),
  findings: z
    .array(ScanFinding)
    .optional()
    .describe("Only for a webhook with `include_content`: the scan's findings, as the scan returns them."),
  content: Scan.shape.content.describe(
    'Only for a webhook with `include_content`, and only when the scan captured its content and its ' +
      'retention has not passed.',
  ),
});

/** The `data` of the `scan.*` events. */
export const ScanEventData = resource(
  'ScanEventData',
  z.union([
    scanSummary,
    z
      .object({ scan_id: z.string() })
      .describe('The scan was deleted (organization deletion) before this attempt: only its id.'),
  ]),
  'The `data` of `scan.blocked`, `scan.flagged`, `scan.warned` and `scan.allowed`: a summary of the scan ' +
    'that never holds raw content unless the webhook has `include_content`. The full scan is ' +
    '`GET /v1/scans/{scan_id}`. Built from the stored scan at each attempt.',
);

/** The `data` of `webhook.failing` (services/webhooks/pump.ts `failingEvents`). */
export const WebhookFailingData = resource(
  'WebhookFailingData',
  z.object({
    webhook_id: z.string().describe('The failing webhook.'),
    url: z.string().nullable().describe('Its URL; null when it was deleted meanwhile.'),
    consecutive_failures: z.int().min(1),
    threshold: z.int().min(1).describe('`WEBHOOK_FAILING_THRESHOLD`: the streak length that emits the event.'),
    last_failure_at: nullableInstant.describe('Start of the latest failed attempt.'),
    last_error: z.string().nullable(),
    last_status_code: z.int().nullable().describe("The receiver's status; null when no response came."),
    last_delivery_id: z.string().nullable(),
  }),
  "The `data` of `webhook.failing`: a webhook's consecutive failed attempts reached the threshold " +
    '(once per failing streak).',
);

/** Each event type's `data` schema; a new event type does not compile until it has one. */
export const EVENT_DATA: Readonly<Record<WebhookEventType, z.ZodType>> = {
  'scan.blocked': ScanEventData,
  'scan.flagged': ScanEventData,
  'scan.warned': ScanEventData,
  'scan.allowed': ScanEventData,
  'webhook.failing': WebhookFailingData,
};

/** The envelope of every delivery (services/webhooks/envelope.ts `envelope`). */
export const WebhookEvent = resource(
  'WebhookEvent',
  z.object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    id: z
      .string()
      .describe(
        'The event id (`evt_…`), also in `Service-Event-Id`: the same on every retry and redelivery, ' +
          'and for every webhook the event goes to; deduplicate on it.',
      ),
    created: instant.describe('When the event happened (a scan event: the scan’s `created`).'),
    api_version: z
      .enum(API_VERSIONS)
      .describe(
        `The API revision \`data\` follows (also in \`Service-Api-Version\`): the latest, ${LATEST_API_VERSION}.`,
      ),
    data: z.union([ScanEventData, WebhookFailingData]).describe('Depends on `type`.'),
  }),
  'What a webhook receives: one event, POSTed as JSON.',
);
