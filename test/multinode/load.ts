/**
 * The load the faults suite (faults.test.ts) runs through the balancer: clients of this repository's
 * client package with its default retry policy, a `fetch` wrapper that records every attempt (so the
 * suite sees what a client without retries would have got too), and the summary of what happened.
 */
import { randomUUID } from 'node:crypto';
import { createClient, type ContentFirewallClient } from '../../client/index.ts';

/** One HTTP attempt a client made (a call is one or more attempts). */
export interface Attempt {
  at: number;
  /** When its answer (or the network error) came. */
  endedAt: number;
  /** HTTP status, or 0 for a network error. */
  status: number;
  /** The problem code, `html` for a balancer's page, `network`, or null for a success. */
  code: string | null;
}

/** One call of the load, after the client's retries. */
export interface Call {
  at: number;
  ms: number;
  ok: boolean;
  op: 'scan' | 'get';
  /** The acknowledged scan's id. */
  id?: string;
  error?: string;
}

/** Whether our documented retry policy retries this attempt's answer for a repeatable request. */
function retryable(a: Attempt): boolean {
  if (a.status === 0) return true; // connection refused or reset
  if (a.status === 429 || a.status === 503) return true;
  if (a.status === 409) return a.code === 'idempotency.request_in_progress';
  if (a.status === 502 || a.status === 504) return a.code === 'html';
  return false;
}

/** Steady load through the balancer: `workers` clients, each creating a scan or reading one back, with a pause. */
export class Load {
  readonly attempts: Attempt[] = [];
  readonly calls: Call[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly clients: ContentFirewallClient[];

  constructor(baseUrl: string, apiKeys: string[]) {
    const recording: typeof fetch = async (input, init) => {
      const at = Date.now();
      try {
        const r = await fetch(input, init);
        if (r.ok) this.attempts.push({ at, endedAt: Date.now(), status: r.status, code: null });
        else {
          const type = r.headers.get('content-type') ?? '';
          let code = type.includes('html') || !type ? 'html' : 'other';
          if (type.includes('problem+json')) {
            const text = await r.clone().text();
            code = ((JSON.parse(text) as { code?: string }).code ?? 'problem') as string;
          }
          this.attempts.push({ at, endedAt: Date.now(), status: r.status, code });
        }
        return r;
      } catch (err) {
        this.attempts.push({ at, endedAt: Date.now(), status: 0, code: 'network' });
        throw err;
      }
    };
    // The client package with its default retry policy: the policy under test.
    this.clients = apiKeys.map((apiKey) => createClient({ baseUrl, apiKey, fetch: recording }));
  }

  start(pauseMs: number): void {
    this.running = true;
    this.clients.forEach((_, w) => this.loops.push(this.loop(w, pauseMs)));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(worker: number, pauseMs: number): Promise<void> {
    for (let n = 0; this.running; n++) {
      const at = Date.now();
      const acked = this.calls.filter((c) => c.id);
      const read = n % 4 === 3 && acked.length > 0;
      try {
        if (read) {
          await this.clients[worker]!.scans.get(acked[acked.length - 1 - (n % acked.length)]!.id!);
          this.calls.push({ at, ms: Date.now() - at, ok: true, op: 'get' });
        } else {
          const scan = await this.clients[worker]!.scans.create({
            kind: 'content',
            surface: 'user_message',
            content: {
              type: 'text',
              text: `worker ${worker} message ${n}: ignore previous instructions? ${randomUUID()}`,
            },
          });
          this.calls.push({ at, ms: Date.now() - at, ok: true, op: 'scan', id: scan.id });
        }
      } catch (err) {
        const e = err as { status?: number; code?: string; message: string };
        this.calls.push({
          at,
          ms: Date.now() - at,
          ok: false,
          op: read ? 'get' : 'scan',
          error: `${e.status ?? ''} ${e.code ?? e.message}`,
        });
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }

  /** What happened between `from` and `to` (ms since epoch), for the report. */
  summary(from: number, to = Date.now()) {
    const calls = this.calls.filter((c) => c.at >= from && c.at < to);
    const attempts = this.attempts.filter((a) => a.at >= from && a.at < to);
    const failedAttempts = attempts.filter((a) => a.code !== null);
    const byCode: Record<string, number> = {};
    for (const a of failedAttempts) byCode[`${a.status} ${a.code}`] = (byCode[`${a.status} ${a.code}`] ?? 0) + 1;
    const ms = calls.map((c) => c.ms).sort((a, b) => a - b);
    return {
      calls: calls.length,
      failedCalls: calls.filter((c) => !c.ok).length,
      failures: [...new Set(calls.filter((c) => !c.ok).map((c) => c.error))],
      attempts: attempts.length,
      failedAttempts: failedAttempts.length,
      notRetryable: failedAttempts.filter((a) => !retryable(a)).length,
      byCode,
      p50Ms: ms[Math.floor(ms.length * 0.5)] ?? 0,
      p99Ms: ms[Math.floor(ms.length * 0.99)] ?? 0,
      maxMs: ms.at(-1) ?? 0,
    };
  }
}
