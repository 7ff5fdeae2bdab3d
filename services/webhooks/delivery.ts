/**
 * Outbound webhook delivery: the envelope, the HTTPS sender (SSRF checks on the address actually
 * connected to, no redirects, a hard timeout) and the pump that drains the outbox
 * (`webhook_deliveries`) on the exact retry schedule. Every process may run a pump: rows are claimed
 * with FOR UPDATE SKIP LOCKED and held by a lease, so each attempt is made by one process, and a
 * process that dies mid-attempt leaves its rows to be retried when the lease passes (at least once).
 * docs/webhooks.md has the status transitions.
 */
import https from 'node:https';
import { createSecureContext, rootCertificates, type SecureContext, type TLSSocket } from 'node:tls';
import type { Clock } from '../../lib/clock.ts';
import type { Keyring } from '../../lib/crypto.ts';
import { newTimedId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { signWebhookPayload } from '../../client/webhook-signature.ts';
import { withTransaction, type Db } from '../../store/db.ts';
import * as store from '../../store/webhooks.ts';
import type {
  AttemptResult,
  ClaimedDelivery,
  DeliveryResponse,
  NewDelivery,
  StreakChange,
} from '../../store/webhooks.ts';
import { decryptSecret } from './secrets.ts';
import { assertConnectedAddressAllowed, safeLookup, type AllowList, type LookupAllWithOptions } from './url-guard.ts';

/** Attempt n (1-based) is due this long after attempt 1 started: at once, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h. */
export const RETRY_SCHEDULE_MS = [0, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
/** How much of a receiver's response body a delivery row keeps. */
export const BODY_PREVIEW_BYTES = 1024;

// ---------------------------------------------------------------------------------------------
// Envelope

/** The envelope of one event, serialised once per attempt: `{type, id, created, api_version, data}`. */
export function envelope(
  d: Pick<ClaimedDelivery, 'event_type' | 'event_id' | 'event_created' | 'data' | 'scan_id' | 'scan'>,
  includeContent: boolean,
  apiVersion: string,
  now: Date,
): string {
  const data = d.scan_id !== null ? scanEventData(d.scan_id, d.scan, includeContent, now) : (d.data ?? {});
  return JSON.stringify({
    type: d.event_type,
    id: d.event_id,
    created: new Date(d.event_created).toISOString(),
    api_version: apiVersion,
    data,
  });
}

interface StoredScan {
  id: string;
  created_at: string;
  kind: string;
  surface: string;
  tier: string;
  action: string;
  decision: Record<string, unknown>;
  scores: Record<string, number>;
  findings: { detector: string; items: { label?: string; confidence?: number }[] }[];
  agent_id: string | null;
  session_id: string | null;
  mcp_server: string | null;
  trace_id: string | null;
  end_user_id_hash: string | null;
  content_stored: boolean;
  content: unknown;
  content_expires_at: string | null;
  content_chars: number;
  latency_ms: number;
}

/**
 * A scan event's `data`: a compact summary (decision, scores, per-detector finding counts and labels,
 * context) that never holds raw content; with `include_content`, also the full findings and the
 * captured content (only when the scan captured it and it has not expired: content the caller did not
 * let us keep is never stored for webhooks either). The full scan is `GET /v1/scans/{scan_id}`.
 */
export function scanEventData(
  scanId: string,
  stored: Record<string, unknown> | null,
  includeContent: boolean,
  now: Date,
): Record<string, unknown> {
  if (!stored) return { scan_id: scanId };
  const s = stored as unknown as StoredScan;
  const data: Record<string, unknown> = {
    scan_id: s.id,
    created: new Date(s.created_at).toISOString(),
    kind: s.kind,
    surface: s.surface,
    tier: s.tier,
    action: s.action,
    decision: s.decision,
    scores: s.scores,
    detectors: s.findings.map((f) => ({
      detector: f.detector,
      findings: f.items.length,
      labels: [...new Set(f.items.map((i) => i.label).filter((l): l is string => typeof l === 'string'))],
    })),
    context: {
      agent_id: s.agent_id,
      session_id: s.session_id,
      mcp_server: s.mcp_server,
      trace_id: s.trace_id,
      end_user_id_hash: s.end_user_id_hash,
    },
    content_chars: s.content_chars,
    content_stored: s.content_stored,
    latency_ms: s.latency_ms,
  };
  if (includeContent) {
    data.findings = s.findings;
    if (s.content !== null && s.content_expires_at !== null && new Date(s.content_expires_at) > now)
      data.content = s.content;
  }
  return data;
}

// ---------------------------------------------------------------------------------------------
// Sender

export interface SendOutcome {
  /** The receiver's status; null when no response came (connection error, refusal, timeout). */
  status_code: number | null;
  duration_ms: number;
  body_preview: string;
  error: string | null;
}

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome>;
  close(): void;
}

export interface HttpsSenderOptions {
  allow: AllowList;
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), besides the system roots (WEBHOOK_CA_FILE; tests). */
  extraCa?: string[];
  maxSockets?: number;
  /** The resolver behind the delivery-time address check (tests simulate DNS rebinding with it). */
  lookupImpl?: LookupAllWithOptions;
}

/**
 * POSTs over HTTPS with keep-alive. The resolved address is checked before connecting and the
 * connected peer after (DNS rebinding, IP literals); redirects are not followed (a 3xx is a failed
 * attempt); the whole attempt — connect, TLS, request, response headers and the preview — is bounded
 * by `timeoutMs`. Never throws: failures come back as outcomes.
 */
export class HttpsSender implements Sender {
  private readonly agent: https.Agent;
  private readonly lookup;
  /**
   * Extra CAs go in one secure context built once: a `ca` option would be parsed into a new context
   * per connection and concatenated into the agent's pool key per request (measured: 23% of the
   * process's CPU while delivering).
   */
  private readonly secureContext: SecureContext | undefined;

  constructor(private readonly opts: HttpsSenderOptions) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 256 });
    this.secureContext = opts.extraCa?.length
      ? createSecureContext({ ca: [...rootCertificates, ...opts.extraCa] })
      : undefined;
    this.lookup = safeLookup(opts.allow, opts.lookupImpl);
  }

  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (o: Omit<SendOutcome, 'duration_ms'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...o, duration_ms: elapsed() });
      };
      let req: ReturnType<typeof https.request>;
      try {
        req = https.request(url, {
          method: 'POST',
          agent: this.agent,
          lookup: this.lookup,
          ...(this.secureContext ? { secureContext: this.secureContext } : {}),
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'content-firewall-webhooks/1',
          },
        });
      } catch (err) {
        finish({ status_code: null, body_preview: '', error: (err as Error).message });
        return;
      }
      const timer = setTimeout(
        () => req.destroy(new Error(`timed out after ${this.opts.timeoutMs} ms`)),
        this.opts.timeoutMs,
      );
      req.on('socket', (socket: TLSSocket) => {
        const check = () => {
          try {
            assertConnectedAddressAllowed(socket.remoteAddress, this.opts.allow, new URL(url).hostname);
          } catch (err) {
            req.destroy(err as Error);
          }
        };
        if (socket.connecting) socket.once('connect', check);
        else check();
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({ status_code: res.statusCode ?? null, body_preview: preview(Buffer.concat(chunks)), error: null });
        res.on('data', (chunk: Buffer) => {
          if (size < BODY_PREVIEW_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= BODY_PREVIEW_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
        res.on('aborted', done);
      });
      req.on('error', (err: Error) => finish({ status_code: null, body_preview: '', error: describeError(err) }));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The first BODY_PREVIEW_BYTES bytes as text, without a character cut in half. */
function preview(bytes: Buffer): string {
  return bytes
    .subarray(0, BODY_PREVIEW_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

function describeError(err: NodeJS.ErrnoException): string {
  const text = err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : err.message;
  return text.slice(0, 500);
}

// ---------------------------------------------------------------------------------------------
// Pump

export interface DeliveryMetrics {
  attempt(outcome: 'succeeded' | 'failed' | 'dead_lettered', seconds: number): void;
  inFlight(n: number): void;
  /** How late an attempt started after it was due. */
  lag(seconds: number): void;
}

export interface PumpDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  keyring: Keyring;
  sender: Sender;
  apiVersion: string;
  concurrency: number;
  timeoutMs: number;
  pollMs: number;
  failingThreshold: number;
  metrics?: DeliveryMetrics;
}

/**
 * Drains due deliveries: claims up to `concurrency` rows at a time, sends them, and records each
 * outcome (group-committed, like scans). Woken at once by `poke()` (a scan batch that enqueued
 * deliveries, a redelivery), and every `pollMs` for retries and other processes' leftovers.
 */
export class DeliveryPump {
  private readonly inFlight = new Set<Promise<void>>();
  private results: { result: AttemptResult; streak: 'success' | 'failure' }[] = [];
  private recording: Promise<void> | null = null;
  private filling: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly deps: PumpDeps) {}

  /** A lease long enough for one attempt and its recording; a dead holder's rows are due again after it. */
  get leaseMs(): number {
    return this.deps.timeoutMs * 3;
  }

  start(): void {
    this.timer = setInterval(() => this.poke(), this.deps.pollMs);
    this.timer.unref();
    this.poke();
  }

  /** Looks for due deliveries now (coalesced: one claim loop at a time). */
  poke(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill()
      .catch((err: Error) => this.deps.logger.error({ err: err.message }, 'webhook claim failed'))
      .finally(() => {
        this.filling = null;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** Sends everything due now and waits until it is recorded (tests move a manual clock, then settle). */
  async settle(): Promise<void> {
    do {
      this.poke();
      await this.quiesce();
    } while ((await store.countDueDeliveries(this.deps.db, this.deps.clock.now())) > 0);
  }

  /** Stops claiming; waits for attempts in flight (bounded by their timeout) and records them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.quiesce();
    this.deps.sender.close();
  }

  /** Waits until no claim, attempt or recording is under way and every outcome is recorded. */
  private async quiesce(): Promise<void> {
    while (this.filling || this.inFlight.size || this.recording || this.results.length) {
      await Promise.all([this.filling, ...this.inFlight, this.recording]);
      if (this.results.length && !this.recording) this.flushResults();
    }
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.inFlight.size < this.deps.concurrency) {
      const now = this.deps.clock.now();
      const room = this.deps.concurrency - this.inFlight.size;
      const claimed = await store.claimDueDeliveries(this.deps.db, now, new Date(now.getTime() + this.leaseMs), room);
      for (const d of claimed) {
        const p: Promise<void> = this.attempt(d)
          .catch((err: Error) =>
            this.deps.logger.error({ err: err.message, delivery_id: d.id }, 'webhook attempt failed unexpectedly'),
          )
          .finally(() => {
            this.inFlight.delete(p);
            this.deps.metrics?.inFlight(this.inFlight.size);
            // A full claim means more may be waiting: keep the pipe full without waiting for the poll.
            if (claimed.length === room) this.poke();
          });
        this.inFlight.add(p);
      }
      this.deps.metrics?.inFlight(this.inFlight.size);
      if (claimed.length < room) return;
    }
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const { clock } = this.deps;
    if (!d.webhook) {
      // Its webhook was deleted after the scan enqueued it.
      await store.deleteDeliveries(this.deps.db, [d]);
      return;
    }
    const startedAt = clock.now();
    const number = d.status === 'pending' ? 1 : d.attempt + 1;
    if (d.next_attempt_at)
      this.deps.metrics?.lag(Math.max(0, (startedAt.getTime() - new Date(d.next_attempt_at).getTime()) / 1000));
    const out = await this.send(d, d.webhook, startedAt);
    const ok = out.status_code !== null && out.status_code >= 200 && out.status_code < 300;
    const first = d.first_attempt_at ? new Date(d.first_attempt_at) : startedAt;
    const status = ok ? 'succeeded' : number >= MAX_ATTEMPTS ? 'dead_lettered' : 'failed';
    const response: DeliveryResponse | null =
      out.status_code === null
        ? null
        : { status_code: out.status_code, duration_ms: out.duration_ms, body_preview: out.body_preview };
    this.deps.metrics?.attempt(status, out.duration_ms / 1000);
    this.results.push({
      streak: ok ? 'success' : 'failure',
      result: {
        org_id: d.org_id,
        id: d.id,
        webhook_id: d.webhook_id,
        attempt: number,
        status,
        started_at: startedAt,
        next_attempt_at: status === 'failed' ? new Date(first.getTime() + RETRY_SCHEDULE_MS[number]!) : null,
        response,
        error: ok ? null : (out.error ?? `receiver answered ${out.status_code}`),
        delivered_at: ok ? clock.now() : null,
      },
    });
    if (!this.recording) this.flushResults();
    await this.recording;
  }

  /** Signs with every valid secret and sends; a secret that cannot be decrypted is a failed attempt. */
  private async send(
    d: ClaimedDelivery,
    webhook: NonNullable<ClaimedDelivery['webhook']>,
    startedAt: Date,
  ): Promise<SendOutcome> {
    const key = this.deps.keyring.webhookSecretEncryption;
    let secrets: string[];
    try {
      secrets = [decryptSecret(key, d.org_id, d.webhook_id, webhook.secret_enc)];
    } catch {
      // Retried and then dead-lettered like any failure, rather than a row retried forever.
      this.deps.logger.error(
        { webhook_id: d.webhook_id, org_id: d.org_id },
        'webhook signing secret cannot be decrypted',
      );
      return {
        status_code: null,
        duration_ms: 0,
        body_preview: '',
        error:
          'the signing secret cannot be decrypted (was SECRET_KEY or DATA_DIR/secret.key changed?); rotate the secret',
      };
    }
    if (
      webhook.previous_secret_enc &&
      webhook.previous_secret_expires_at &&
      new Date(webhook.previous_secret_expires_at) > startedAt
    ) {
      try {
        secrets.push(decryptSecret(key, d.org_id, d.webhook_id, webhook.previous_secret_enc));
      } catch {
        // The current secret still signs; a previous one that cannot be read only shortens its grace.
      }
    }
    const body = envelope(d, webhook.include_content, this.deps.apiVersion, startedAt);
    return this.deps.sender.send(webhook.url, body, {
      'service-signature': signWebhookPayload(body, secrets, Math.floor(startedAt.getTime() / 1000)),
      'service-event-id': d.event_id,
      'service-api-version': this.deps.apiVersion,
    });
  }

  /** Group commit of outcomes: while one batch is written, the next accumulates. */
  private flushResults(): void {
    const batch = this.results;
    this.results = [];
    this.recording = this.record(batch)
      .catch((err: Error) =>
        this.deps.logger.error(
          { err: err.message, results: batch.length },
          'recording webhook attempts failed; their leases will expire and they will be retried',
        ),
      )
      .finally(() => {
        this.recording = null;
        if (this.results.length) this.flushResults();
      });
  }

  private async record(batch: { result: AttemptResult; streak: 'success' | 'failure' }[]): Promise<void> {
    const now = this.deps.clock.now();
    let enqueued = 0;
    await withTransaction(this.deps.db, async (tx) => {
      const applied = new Set(
        (
          await store.recordAttempts(
            tx,
            batch.map((b) => b.result),
          )
        ).map((r) => `${r.org_id}/${r.id}`),
      );
      const streaks = new Map<string, StreakChange>();
      for (const { result, streak } of batch) {
        if (!applied.has(`${result.org_id}/${result.id}`)) continue;
        const key = `${result.org_id}/${result.webhook_id}`;
        const s = streaks.get(key) ?? {
          org_id: result.org_id,
          id: result.webhook_id,
          reset: false,
          failures: 0,
          last_failure_at: null,
        };
        if (streak === 'success') {
          s.reset = true;
          s.failures = 0;
        } else {
          s.failures++;
          s.last_failure_at = result.started_at;
        }
        streaks.set(key, s);
      }
      const changed = await store.updateFailureStreaks(tx, [...streaks.values()]);
      const threshold = this.deps.failingThreshold;
      for (const w of changed) {
        if (!(w.before < threshold && w.after >= threshold)) continue;
        const last = [...batch]
          .reverse()
          .find((b) => b.result.org_id === w.org_id && b.result.webhook_id === w.id)?.result;
        const events = await failingEvents(tx, w.org_id, w.id, w.after, threshold, last ?? null, now);
        await store.insertDeliveries(tx, events);
        enqueued += events.length;
      }
    });
    if (enqueued) this.poke();
  }
}

/** `webhook.failing` for every webhook of the organization subscribed to it (the failing one included). */
async function failingEvents(
  tx: import('../../store/db.ts').Queryable,
  orgId: string,
  webhookId: string,
  failures: number,
  threshold: number,
  last: AttemptResult | null,
  now: Date,
): Promise<NewDelivery[]> {
  const subscribers = await store.subscribersOf(tx, orgId, 'webhook.failing');
  if (!subscribers.length) return [];
  const hook = await store.getWebhook(tx, orgId, webhookId);
  const eventId = newTimedId('event', now.getTime());
  const data = {
    webhook_id: webhookId,
    url: hook?.url ?? null,
    consecutive_failures: failures,
    threshold,
    last_failure_at: last?.started_at.toISOString() ?? null,
    last_error: last?.error ?? null,
    last_status_code: last?.response?.status_code ?? null,
    last_delivery_id: last?.id ?? null,
  };
  return subscribers.map((id) => ({
    org_id: orgId,
    id: newTimedId('webhookDelivery', now.getTime()),
    webhook_id: id,
    event_id: eventId,
    event_type: 'webhook.failing' as const,
    event_created: now,
    scan_id: null,
    data,
    created_at: now,
    next_attempt_at: now,
    redelivery_of: null,
  }));
}
