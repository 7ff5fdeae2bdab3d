/**
 * The red-team self-test against a running deployment, over its public API only: records a run,
 * sends every probe of the corpus through `POST /v1/scans`, records each probe as a labeled event
 * (`source: redteam`, when the deployment has the route and uploads are on), adds one finding per
 * attack class that had misses, and finalizes the run with the worst finding's severity.
 */
import { createHash } from 'node:crypto';
import { CLASS_INFO, corpusHash, type AttackClass, type Probe, type Severity } from './redteam-corpus.ts';

export const REDTEAM_VERSION = 'redteam-cli 1.0.0';
const SEVERITY_RANK: Record<Severity, number> = { info: 0, low: 1, medium: 2, high: 3, critical: 4 };

export interface RedteamOptions {
  /** The deployment's base URL (`https://firewall.example.com`). */
  target: string;
  /** An API key with scans:write, redteam:write (and labeled_events:write for uploads). */
  key: string;
  probes: Probe[];
  /** The operator attests written authorization to test the target (the API refuses a run without it). */
  writtenAuthorization: boolean;
  upload: boolean;
  trainingConsent: boolean;
  operatorId: string | null;
  tier: 'fast' | 'accurate' | 'auto';
  concurrency: number;
  /** Called after each probe (the progress bar). */
  onProgress?: (done: number, total: number) => void;
  /** Warnings for the operator (an upload the deployment cannot take …). */
  warn?: (message: string) => void;
}

export interface ClassSummary {
  attack_class: AttackClass;
  probes: number;
  caught: number;
  missed: number;
  errors: number;
}

export interface RedteamResult {
  run_id: string;
  verdict: Severity;
  classes: ClassSummary[];
  uploaded: number;
}

interface Outcome {
  probe: Probe;
  /** The scan's decision action, or null when the scan failed. */
  action: string | null;
  error?: string;
  eventId?: string;
}

/** A failed API call: its status and problem code. */
export class RedteamApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The parts of the target's answers the runner reads (a problem, a run, a scan, an append, a page). */
interface ApiBody {
  code?: string;
  detail?: string;
  run_id?: string;
  decision?: { action: string };
  event_ids?: string[];
  data?: { name: string; version: string }[];
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: ApiBody | null }>;

function client(target: string, key: string): Call {
  const base = target.replace(/\/+$/, '');
  return async (method, path, body) => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      // Overload and rate limits are transient: honour Retry-After a few times.
      if ((res.status === 429 || res.status === 503) && attempt < 3) {
        const wait = Math.min(Number(res.headers.get('retry-after') ?? '1') || 1, 10);
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      return { status: res.status, body: text ? (JSON.parse(text) as ApiBody) : null };
    }
  };
}

async function expectOk(call: Call, method: string, path: string, body: unknown, ok: number): Promise<ApiBody> {
  const r = await call(method, path, body);
  if (r.status !== ok) {
    const code = String(r.body?.code ?? 'unknown');
    throw new RedteamApiError(r.status, code, `${method} ${path}: ${r.status} ${code}: ${r.body?.detail ?? ''}`);
  }
  return r.body ?? {};
}

/** Runs `fn` over `items` with at most `n` in flight, keeping the order of the results. */
async function pool<T, R>(items: T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
  return out;
}

/** The detector catalog's versions: the run's `model_versions`. */
async function modelVersions(call: Call): Promise<Record<string, string>> {
  const r = await call('GET', '/v1/detectors?limit=200');
  const out: Record<string, string> = {};
  for (const d of r.body?.data ?? []) out[d.name] = d.version;
  return out;
}

/**
 * Runs the self-test and returns its summary.
 * @throws RedteamApiError when the target refuses the run (or a step after it); the run, if created,
 * is then finalized with verdict `info` and the reason.
 */
export async function runRedteam(o: RedteamOptions): Promise<RedteamResult> {
  const call = client(o.target, o.key);
  const startedAt = new Date();
  const classes = [...new Set(o.probes.map((p) => p.attack_class))];
  const origin = new URL(o.target).origin;
  const run = await expectOk(
    call,
    'POST',
    '/v1/redteam-runs',
    {
      scope_hash: createHash('sha256')
        .update(JSON.stringify({ target: origin, classes }))
        .digest('hex'),
      scope_redacted: { target_origin: origin, classes, probes: o.probes.length, tier: o.tier },
      upload_enabled: o.upload,
      training_consent: o.trainingConsent,
      written_authorization: o.writtenAuthorization,
      attached_authenticated: false,
      started_at: startedAt.toISOString(),
      model_versions: await modelVersions(call),
      corpus_hashes: { builtin: corpusHash(o.probes) },
      redteam_version: REDTEAM_VERSION,
      operator_id: o.operatorId,
    },
    201,
  );
  const runId = String(run.run_id);
  try {
    let done = 0;
    const outcomes = await pool(o.probes, o.concurrency, async (probe): Promise<Outcome> => {
      const r = await call('POST', '/v1/scans', {
        kind: 'content',
        surface: probe.surface,
        content: { type: 'text', text: probe.text },
        options: { tier: o.tier },
      });
      o.onProgress?.(++done, o.probes.length);
      if (r.status !== 201) return { probe, action: null, error: `${r.status} ${r.body?.code ?? ''}` };
      return { probe, action: String(r.body?.decision?.action) };
    });
    const uploaded = o.upload ? await uploadEvents(call, runId, outcomes, o) : 0;
    const summaries = summarise(classes, outcomes);
    const findings = summaries.filter((s) => s.missed > 0).map((s) => findingOf(s, outcomes));
    if (findings.length > 0) await expectOk(call, 'POST', `/v1/redteam-runs/${runId}/findings`, { findings }, 201);
    const verdict = findings.reduce<Severity>(
      (worst, f) => (SEVERITY_RANK[f.severity] > SEVERITY_RANK[worst] ? f.severity : worst),
      'info',
    );
    const missed = summaries.reduce((n, s) => n + s.missed, 0);
    await expectOk(
      call,
      'POST',
      `/v1/redteam-runs/${runId}:finalize`,
      {
        finished_at: new Date(Math.max(Date.now(), startedAt.getTime())).toISOString(),
        verdict,
        verdict_reason: `${missed} of ${o.probes.length} probes allowed; ${findings.length} of ${classes.length} classes with misses`,
      },
      200,
    );
    return { run_id: runId, verdict, classes: summaries, uploaded };
  } catch (err) {
    await call('POST', `/v1/redteam-runs/${runId}:finalize`, {
      finished_at: new Date(Math.max(Date.now(), startedAt.getTime())).toISOString(),
      verdict: 'info',
      verdict_reason: `aborted: ${(err as Error).message}`.slice(0, 4096),
    }).catch(() => undefined);
    throw err;
  }
}

/** Records each scanned probe as a labeled event of the run (batches of 100); the number recorded. */
async function uploadEvents(call: Call, runId: string, outcomes: Outcome[], o: RedteamOptions): Promise<number> {
  const scanned = outcomes.map((x, i) => [x, i] as const).filter(([x]) => x.action !== null);
  let n = 0;
  for (let at = 0; at < scanned.length; at += 100) {
    const batch = scanned.slice(at, at + 100);
    const r = await call('POST', '/v1/labeled-events', {
      events: batch.map(([x, i]) => ({
        source: 'redteam',
        observed_at: new Date().toISOString(),
        input: x.probe.text,
        verdict: x.action,
        severity: CLASS_INFO[x.probe.attack_class].severity,
        framework_refs: CLASS_INFO[x.probe.attack_class].framework_refs,
        training_consent: o.trainingConsent,
        source_data: {
          run_id: runId,
          iteration_index: i,
          attack_class: x.probe.attack_class,
          attack_subclass: x.probe.attack_subclass,
          corpus_entry_id: x.probe.id,
          tokens_used: {},
        },
      })),
    });
    if (r.status === 404 && r.body?.code === 'request.route_not_found') {
      o.warn?.('the target has no labeled-events route: probes were not recorded as labeled events');
      return n;
    }
    if (r.status !== 201) {
      o.warn?.(`recording labeled events failed (${r.status} ${r.body?.code ?? ''}): continuing without them`);
      return n;
    }
    (r.body?.event_ids ?? []).forEach((id, k) => (batch[k]![0].eventId = id));
    n += batch.length;
  }
  return n;
}

function summarise(classes: AttackClass[], outcomes: Outcome[]): ClassSummary[] {
  return classes.map((c) => {
    const mine = outcomes.filter((x) => x.probe.attack_class === c);
    const missed = mine.filter((x) => x.action === 'allowed').length;
    const errors = mine.filter((x) => x.action === null).length;
    return { attack_class: c, probes: mine.length, caught: mine.length - missed - errors, missed, errors };
  });
}

function findingOf(s: ClassSummary, outcomes: Outcome[]) {
  const info = CLASS_INFO[s.attack_class];
  const missed = outcomes.filter((x) => x.probe.attack_class === s.attack_class && x.action === 'allowed');
  const subclasses = [...new Set(missed.map((x) => x.probe.attack_subclass))];
  return {
    attack_class: s.attack_class,
    severity: info.severity,
    title: `${info.title} (${s.missed} of ${s.probes})`,
    description:
      `Allowed probes: ${missed.map((x) => x.probe.id).join(', ')}. Subclasses: ${subclasses.join(', ')}.`.slice(
        0,
        8192,
      ),
    framework_refs: info.framework_refs,
    representative_event_id: missed.find((x) => x.eventId)?.eventId ?? null,
    remediation_class: info.remediation_class,
  };
}
