/**
 * The `webhooks` of the OpenAPI document: what the service POSTs to a subscribed URL, one operation
 * per event type it delivers (services/webhooks/). The bodies are the registered schemas of
 * api/routes/webhooks/events.ts, the headers those the pump sends (services/webhooks/pump.ts, sender.ts),
 * the answers those the pump records as delivered or retried. docs/webhooks.md tells the same in prose.
 */
import { DEFAULT_TOLERANCE_SECONDS } from '../../client/webhook-signature.ts';
import { BODY_PREVIEW_BYTES } from '../../services/webhooks/sender.ts';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from '../../services/webhooks/pump.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../services/webhooks/subscriptions.ts';
import { resourceName } from '../resources.ts';
import { EVENT_DATA, WebhookEvent } from '../routes/webhooks/events.ts';
import { LATEST_API_VERSION } from '../versions.ts';
import { ref } from './components.ts';

type Json = Record<string, unknown>;

/** When each event is sent. */
const WHEN: Readonly<Record<WebhookEventType, string>> = {
  'scan.blocked': 'A scan was decided `blocked`.',
  'scan.flagged': 'A scan was decided `flagged`.',
  'scan.warned': 'A scan was decided `warned`.',
  'scan.allowed': 'A scan was decided `allowed` (observe mode included: `data.decision.observed_action`).',
  'webhook.failing':
    "A webhook's consecutive failed attempts (across its deliveries, reset by any success) reached " +
    '`WEBHOOK_FAILING_THRESHOLD`: once per failing streak. Sent to every webhook subscribed to it, the failing one included.',
};

/** Who receives a scan event besides its subscribers. */
const SCAN_RECIPIENTS =
  "Sent to every active webhook subscribed to the type, and to those named in the deciding rule's " +
  '`then.notify` whatever they subscribe to; one event per scan.';

/** `30 s, 2 min, …`: the retry times after attempt 1 (pump.ts `RETRY_SCHEDULE_MS`). */
function schedule(): string {
  const words = (ms: number) =>
    ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;
  return RETRY_SCHEDULE_MS.slice(1).map(words).join(', ');
}

/** The request headers of every delivery (pump.ts `send`, sender.ts). */
function headers(): Json[] {
  const header = (name: string, description: string, schema: Json, required = true) => ({
    name,
    in: 'header',
    required,
    description,
    schema,
  });
  return [
    header(
      'Service-Signature',
      '`t=<unix seconds>,v1=<hex>`: each `v1` is the hex HMAC-SHA256 of `{t}.{raw body}` keyed with the UTF-8 ' +
        'bytes of a signing secret (the whole `whsec_…` string). During a secret rotation one `v1=` per valid ' +
        'secret. Verify against the raw bytes before parsing (the client package exports ' +
        '`verifyWebhookSignature`, client/webhook-signature.ts, which depends on node:crypto only); refuse a ' +
        `\`t\` more than ${DEFAULT_TOLERANCE_SECONDS} s from your clock (a replay). See docs/webhook-receivers.md.`,
      { type: 'string', pattern: '^t=[1-9][0-9]*(,v1=[0-9a-f]{64})+$' },
    ),
    header(
      'Service-Event-Id',
      "The event's `id`: the same on every retry and redelivery. Deliveries are at least once: deduplicate on it.",
      { type: 'string' },
    ),
    header('Service-Api-Version', `The envelope's \`api_version\` (${LATEST_API_VERSION}).`, {
      type: 'string',
      format: 'date',
    }),
    header('User-Agent', 'Always `content-firewall-webhooks/1`.', { type: 'string' }, false),
  ];
}

/** What the receiver answers, as the pump reads it (pump.ts `attempt`). */
function responses(): Json {
  return {
    '2XX': {
      description:
        `Delivered: any 2xx ends the delivery (\`succeeded\`). The first ${BODY_PREVIEW_BYTES} bytes of the ` +
        'body are kept as the delivery’s `response.body_preview`; nothing else of the answer is read.',
    },
    default: {
      description:
        'Anything else is a failed attempt: another status (a 3xx is not followed), or no complete answer within ' +
        '`WEBHOOK_TIMEOUT_MS` (10 s by default, for the whole attempt: DNS, connect, TLS, headers and the preview), ' +
        `or a connection or TLS error. It is retried ${schedule()} after the start of attempt 1; a failure of ` +
        `attempt ${MAX_ATTEMPTS} dead-letters the delivery (\`POST /v1/webhook-deliveries/{delivery_id}:redeliver\` ` +
        'starts a new chain). A receiver refusing a bad signature should answer 400 (it will be retried, then ' +
        'dead-lettered).',
    },
  };
}

/** The operation of one event type: its envelope with `type` fixed and `data` narrowed to that event's schema. */
function operation(type: WebhookEventType): Json {
  const isScan = type.startsWith('scan.');
  return {
    // `scan.blocked` → `onScanBlocked`: camelCase, like the operations' names.
    operationId: `on${type.replace(/(?:^|[._])(\w)/g, (_m, c: string) => c.toUpperCase())}`,
    tags: ['webhooks'],
    summary: `\`${type}\``,
    description: `${WHEN[type]}${isScan ? ` ${SCAN_RECIPIENTS}` : ''} No bearer token: authenticate the sender by \`Service-Signature\`.`,
    security: [],
    parameters: headers(),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('schemas', resourceName(WebhookEvent)),
              {
                type: 'object',
                properties: { type: { const: type }, data: ref('schemas', resourceName(EVENT_DATA[type])) },
              },
            ],
          },
        },
      },
    },
    responses: responses(),
  };
}

/** The document's `webhooks`: event type → `{post}`, for every type the service delivers. */
export function webhookOperations(): Record<string, unknown> {
  return Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, { post: operation(type) }]));
}
