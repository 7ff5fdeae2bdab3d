/**
 * The red-team self-test against a running deployment, over its public API only: records a run,
 * sends every probe of the corpus through `POST /v1/scans`, records each probe as a labeled event
 * (`source: redteam`, when the deployment has the route and uploads are on), adds one finding per
 * attack class that had misses, and finalizes the run with the worst finding's severity.
 */
import { createHash } from 'node:crypto';
import { ContentFirewallError, type ContentFirewallClient, type Scan } from '../client/index.ts';
import { call, clientOf } from './api-http.ts';
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
  action: Scan['decision']['action'] | null;
  error?: string;
  eventId?: string;
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

/** The detector catalog's versions: the run's `model_versions` (none when the key may not list them). */
async function modelVersions(client: ContentFirewallClient): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  try {
    for (const d of (await client.detectors.list({ limit: 200 })).data) out[d.name] = d.version;
  } catch (err) {
    if (!(err instanceof ContentFirewallError)) throw err;
  }
  return out;
}

/** A probe's scan: its decision action, or null and the error's status and code when the API refused it. */
async function scanProbe(client: ContentFirewallClient, probe: Probe, tier: RedteamOptions['tier']): Promise<Outcome> {
  try {
    const scan = await client.scans.create({
      kind: 'content',
      surface: probe.surface,
      content: { type: 'text', text: probe.text },
      options: { tier },
    });
    return { probe, action: scan.decision.action };
  } catch (err) {
    if (!(err instanceof ContentFirewallError)) throw err;
    return { probe, action: null, error: `${err.status} ${err.code}` };
  }
}

/**
 * Runs the self-test and returns its summary.
 * @throws ApiProblem when the target refuses the run (or a step after it); the run, if created, is
 * then finalized with verdict `info` and the reason. ApiUnreachable when the target cannot be reached.
 */
export async function runRedteam(o: RedteamOptions): Promise<RedteamResult> {
  const client = clientOf({ target: o.target, key: o.key });
  const startedAt = new Date();
  const classes = [...new Set(o.probes.map((p) => p.attack_class))];
  const origin = new URL(o.target).origin;
  const run = await call(client.redteamRuns.create, {
    scope_hash: createHash('sha256')
      .update(JSON.stringify({ target: origin, classes }))
      .digest('hex'),
    scope_redacted: { target_origin: origin, classes, probes: o.probes.length, tier: o.tier },
    upload_enabled: o.upload,
    training_consent: o.trainingConsent,
    written_authorization: o.writtenAuthorization,
    attached_authenticated: false,
    started_at: startedAt.toISOString(),
    model_versions: await modelVersions(client),
    corpus_hashes: { builtin: corpusHash(o.probes) },
    redteam_version: REDTEAM_VERSION,
    operator_id: o.operatorId,
  });
  const runId = run.run_id;
  try {
    let done = 0;
    const outcomes = await pool(o.probes, o.concurrency, async (probe) => {
      const outcome = await scanProbe(client, probe, o.tier);
      o.onProgress?.(++done, o.probes.length);
      return outcome;
    });
    const uploaded = o.upload ? await uploadEvents(client, runId, outcomes, o) : 0;
    const summaries = summarise(classes, outcomes);
    const findings = summaries.filter((s) => s.missed > 0).map((s) => findingOf(s, outcomes));
    if (findings.length > 0) await call(client.redteamRuns.addFindings, runId, { findings });
    const verdict = findings.reduce<Severity>(
      (worst, f) => (SEVERITY_RANK[f.severity] > SEVERITY_RANK[worst] ? f.severity : worst),
      'info',
    );
    const missed = summaries.reduce((n, s) => n + s.missed, 0);
    await call(client.redteamRuns.finalize, runId, {
      finished_at: new Date(Math.max(Date.now(), startedAt.getTime())).toISOString(),
      verdict,
      verdict_reason: `${missed} of ${o.probes.length} probes allowed; ${findings.length} of ${classes.length} classes with misses`,
    });
    return { run_id: runId, verdict, classes: summaries, uploaded };
  } catch (err) {
    await client.redteamRuns
      .finalize(runId, {
        finished_at: new Date(Math.max(Date.now(), startedAt.getTime())).toISOString(),
        verdict: 'info',
        verdict_reason: `aborted: ${(err as Error).message}`.slice(0, 4096),
      })
      .catch(() => undefined);
    throw err;
  }
}

/** The labeled events of a batch of scanned probes (each with its index in the corpus). */
function eventsOf(batch: (readonly [Outcome, number])[], runId: string, o: RedteamOptions) {
  return batch.map(([x, i]) => ({
    source: 'redteam' as const,
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
  }));
}

/** Why the target refused labeled events, for the operator. */
function uploadWarning(err: ContentFirewallError): string {
  if (err.status === 404 && err.code === 'request.route_not_found')
    return 'the target has no labeled-events route: probes were not recorded as labeled events';
  return `recording labeled events failed (${err.status} ${err.code}): continuing without them`;
}

/** Records each scanned probe as a labeled event of the run (batches of 100); the number recorded. */
async function uploadEvents(
  client: ContentFirewallClient,
  runId: string,
  outcomes: Outcome[],
  o: RedteamOptions,
): Promise<number> {
  const scanned = outcomes.map((x, i) => [x, i] as const).filter(([x]) => x.action !== null);
  let n = 0;
  for (let at = 0; at < scanned.length; at += 100) {
    const batch = scanned.slice(at, at + 100);
    let appended;
    try {
      appended = await client.labeledEvents.create({ events: eventsOf(batch, runId, o) });
    } catch (err) {
      if (!(err instanceof ContentFirewallError)) throw err;
      o.warn?.(uploadWarning(err));
      return n;
    }
    appended.event_ids.forEach((id, k) => (batch[k]![0].eventId = id));
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
