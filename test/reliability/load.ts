/**
 * A steady load for the fault suites: a few workers, each sending one request after another (with a
 * short pause) while a dependency goes away and comes back, recording how every request was answered
 * and how long it took. A request that takes longer than `hangMs` is aborted and counted as hung.
 */

/** One request of the load. */
export interface LoadRequest {
  /** What the tally calls it (`scan`, `me`, …). */
  op: string;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Reads what the test wants to know from a success's body (which model answered, …): the sample's `tag`. */
  inspect?: (body: unknown) => string | null;
}

/** How one request was answered. */
export interface Sample {
  op: string;
  /** Date.now() when it was sent. */
  at: number;
  ms: number;
  /** HTTP status; 0 when no response came (`code` says why: `hung` or `network`). */
  status: number;
  /** The problem's `code`, `hung`, `network`, or null for a success. */
  code: string | null;
  contentType: string;
  /** The created resource's id (a 201's `id`). */
  id: string | null;
  /** What `inspect` said about a success. */
  tag: string | null;
}

export interface LoadOptions {
  workers: number;
  /** Pause between one worker's requests: a steady rate rather than saturation (the machine has 2 cores). */
  pauseMs: number;
  /** A request still unanswered after this long is aborted and counted as hung. */
  hangMs: number;
}

export class SteadyLoad {
  readonly samples: Sample[] = [];
  private running = false;
  private workers: Promise<void>[] = [];
  private n = 0;

  constructor(
    /** The i-th request to send (i counts every request of every worker). */
    private readonly next: (i: number) => LoadRequest,
    private readonly o: LoadOptions,
  ) {}

  start(): void {
    this.running = true;
    this.workers = Array.from({ length: this.o.workers }, () => this.work());
  }

  /** Stops sending and waits for the requests in flight. */
  async stop(): Promise<Sample[]> {
    this.running = false;
    await Promise.all(this.workers);
    return this.samples;
  }

  /** The samples sent in [from, to). */
  between(from: number, to: number): Sample[] {
    return this.samples.filter((s) => s.at >= from && s.at < to);
  }

  private async work(): Promise<void> {
    while (this.running) {
      this.samples.push(await send(this.next(this.n++), this.o.hangMs));
      await new Promise((r) => setTimeout(r, this.o.pauseMs));
    }
  }
}

/** Sends one request, never throwing: a failure is a sample with status 0. */
export async function send(r: LoadRequest, hangMs: number): Promise<Sample> {
  const at = Date.now();
  const headers: Record<string, string> = { ...r.headers };
  if (r.body !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(r.url, {
      method: r.method,
      headers,
      body: r.body === undefined ? undefined : JSON.stringify(r.body),
      signal: AbortSignal.timeout(hangMs),
    });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    const body = /json/.test(contentType) && text ? (JSON.parse(text) as { id?: string; code?: string }) : {};
    const ok = res.status < 400;
    const tag = ok && r.inspect ? r.inspect(body) : null;
    return {
      op: r.op,
      at,
      ms: Date.now() - at,
      status: res.status,
      code: ok ? null : (body.code ?? 'no-code'),
      contentType,
      id: res.status === 201 ? (body.id ?? null) : null,
      tag,
    };
  } catch (err) {
    const hung = (err as Error).name === 'TimeoutError';
    return {
      op: r.op,
      at,
      ms: Date.now() - at,
      status: 0,
      code: hung ? 'hung' : 'network',
      contentType: '',
      id: null,
      tag: null,
    };
  }
}

/** Counts of "<op> <status>[ <code>][ <tag>]", for assertions and the report. */
export function tally(samples: readonly Sample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    const k = `${s.op} ${s.status}${s.code ? ` ${s.code}` : ''}${s.tag ? ` ${s.tag}` : ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort());
}

/** The slowest sample's milliseconds (0 for none). */
export function maxMs(samples: readonly Sample[]): number {
  return samples.reduce((m, s) => Math.max(m, s.ms), 0);
}

/** Polls `what` until true; resolves with the milliseconds it took. @throws after `ms`. */
export async function until(what: () => boolean | Promise<boolean>, ms: number, intervalMs = 25): Promise<number> {
  const started = Date.now();
  while (
    !(await Promise.resolve()
      .then(what)
      .catch(() => false))
  ) {
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return Date.now() - started;
}

/** Like `until`, but resolves null instead of throwing when `ms` passes. */
export async function within(
  what: () => boolean | Promise<boolean>,
  ms: number,
  intervalMs = 25,
): Promise<number | null> {
  return until(what, ms, intervalMs).catch(() => null);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
