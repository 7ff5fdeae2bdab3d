/**
 * The pump that drains the webhook outbox (`webhook_deliveries`) on the exact retry schedule. Every
 * process may run a pump: rows are claimed with FOR UPDATE SKIP LOCKED and held by a lease, so each
 * attempt is made by one process, and a process that dies mid-attempt leaves its rows to be retried
 * when the lease passes (at least once). docs/webhooks.md has the status transitions.
 */
import type { Clock } from '../../lib/clock.ts';
import type { Keyring } from '../../lib/crypto.ts';
import { newTimedId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { signWebhookPayload } from '../../client/webhook-signature.ts';
import { withRetriedTransaction, type Db, type Queryable } from '../../store/db.ts';
import * as store from '../../store/webhooks.ts';
import type {
  AttemptResult,
  ClaimedDelivery,
  DeliveryResponse,
  NewDelivery,
  StreakChange,
} from '../../store/webhooks.ts';
import { envelope } from './envelope.ts';
import { decryptSecret } from './secrets.ts';
import type { Sender, SendOutcome } from './sender.ts';

/** Attempt n (1-based) is due this long after attempt 1 started: at once, 30 s, 2 min, 10 min, 1 h, 6 h, 24 h. */
export const RETRY_SCHEDULE_MS = [0, 30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
/** Tries of a batch's write that the database aborts (deadlock, serialization failure); after the last, its outcomes are left to their leases. */
const RECORD_ATTEMPTS = 5;

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

  /**
   * Writes one batch of outcomes in one transaction: the batch's webhooks locked first, in key order
   * (the order a webhook's delete takes, so the two never deadlock), then the deliveries, the failure
   * streaks and any `webhook.failing` events. A deadlock or serialization failure rolls the whole
   * batch back; it is then written again as a unit — each outcome applies only while its row still
   * waits for that attempt, so a second run records nothing twice.
   */
  private async record(batch: { result: AttemptResult; streak: 'success' | 'failure' }[]): Promise<void> {
    const now = this.deps.clock.now();
    const webhooks = new Map(
      batch.map(({ result: r }) => [`${r.org_id}/${r.webhook_id}`, { org_id: r.org_id, id: r.webhook_id }]),
    );
    const enqueued = await withRetriedTransaction(
      this.deps.db,
      async (tx) => {
        await store.lockWebhooks(tx, [...webhooks.values()]);
        return this.writeOutcomes(tx, batch, now);
      },
      {
        attempts: RECORD_ATTEMPTS,
        onRetry: (err, attempt) =>
          this.deps.logger.warn(
            { err: err.message, results: batch.length, attempt },
            'recording webhook attempts was rolled back by the database; writing the batch again',
          ),
      },
    );
    if (enqueued) this.poke();
  }

  /** The batch's statements, inside its transaction; returns how many `webhook.failing` deliveries it enqueued. */
  private async writeOutcomes(
    tx: Queryable,
    batch: { result: AttemptResult; streak: 'success' | 'failure' }[],
    now: Date,
  ): Promise<number> {
    let enqueued = 0;
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
    return enqueued;
  }
}

/** `webhook.failing` for every webhook of the organization subscribed to it (the failing one included). */
async function failingEvents(
  tx: Queryable,
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
