/**
 * Policy backtest throughput: scans evaluated per second over stored scans.
 *
 *   npm run bench:backtest -- [--scans 200000] [--runs 3] [--labels] [--json]
 *
 * Creates a fresh database `cf_bench_backtest` on the local PostgreSQL (or uses DATABASE_URL),
 * stores `--scans` synthetic scans for one organization (a realistic mix of actions, surfaces,
 * agents, scores and PII findings) through the same batch insert the service uses, then runs
 * `backtestPolicy` with a three-rule policy `--runs` times and reports scans/s for each run.
 * `--labels` adds a `label_in` rule, which makes the backtest read the findings too.
 */
import { parseArgs } from 'node:util';
import { systemClock } from '../lib/clock.ts';
import { newTimedId } from '../lib/ids.ts';
import { LocalInvalidationBus } from '../services/invalidation-bus.ts';
import { backtestPolicy } from '../services/policies/backtest.ts';
import { PolicyCache } from '../services/policies/cache.ts';
import type { PolicyDeps } from '../services/policies/deps.ts';
import { createPolicy } from '../services/policies/manage.ts';
import { createOrganization } from '../services/organizations.ts';
import { createPool } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { insertScans, type ScanRow } from '../store/scans.ts';
import { benchmarkDatabase } from './database.ts';

const { values: args } = parseArgs({
  options: {
    scans: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '3' },
    labels: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(args.scans);
const say = (s: string) => args.json || process.stderr.write(`${s}\n`);

const db = createPool(await benchmarkDatabase('cf_bench_backtest'), 4, () => undefined);
await migrate(db);
const org = await createOrganization(db, systemClock, `backtest ${Date.now()}`);

// Deterministic mix (mulberry32), one scan per 10 ms ending now.
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const SURFACES = ['user_message', 'assistant_output', 'tool_result', 'document'];
const start = Date.now() - N * 10;
const t0 = performance.now();
for (let done = 0; done < N;) {
  const batch: ScanRow[] = [];
  for (let i = 0; i < 2000 && done < N; i++, done++) {
    const at = new Date(start + done * 10);
    const pi = rand() ** 3;
    const pii = rand() < 0.2;
    const action = pi > 0.95 ? 'blocked' : pi > 0.85 ? 'flagged' : pii ? 'warned' : 'allowed';
    batch.push({
      org_id: org.id,
      id: newTimedId('scan', at.getTime()),
      created_at: at,
      kind: 'content',
      surface: SURFACES[Math.floor(rand() * SURFACES.length)]!,
      tier: 'auto',
      agent_id: rand() < 0.5 ? `agent-${Math.floor(rand() * 20)}` : null,
      session_id: `s-${Math.floor(rand() * 1000)}`,
      mcp_server: rand() < 0.1 ? 'files' : null,
      trace_id: null,
      end_user_id_hash: null,
      action,
      decision: {
        action,
        reason: 'score_threshold',
        policy_id: null,
        policy_revision_id: null,
        matched_rule_id: null,
        triggering_finding: null,
      },
      findings: pii
        ? [
            {
              detector: 'pii',
              items: [
                {
                  text: 'x@y.z',
                  label: rand() < 0.5 ? 'EMAIL_ADDRESS' : 'US_SSN',
                  confidence: 0.95,
                  source: 'regex',
                  span: [0, 5],
                },
              ],
              frameworks: { owasp_llm: ['LLM02:2025'], owasp_agentic: [], mitre_atlas: [] },
            },
          ]
        : [],
      scores: { prompt_injection: pi, pii: pii ? 0.95 : 0, toxicity: rand() * 0.3, sensitive_path: 0 },
      content_stored: false,
      content: null,
      content_expires_at: null,
      content_chars: Math.floor(rand() * 4000),
      latency_ms: 2,
      api_key_id: null,
      request_id: null,
      mcp_tools: null,
      observed_action: null,
    });
  }
  await insertScans(db, batch);
}
await db.query('ANALYZE scans');
say(`stored ${N} scans in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const changes = new LocalInvalidationBus();
const thresholds = { warn_above: 0.5, flag_above: 0.8, block_above: 0.95 };
const deps: PolicyDeps = {
  db,
  clock: systemClock,
  catalog: { names: ['prompt_injection', 'pii', 'toxicity', 'sensitive_path'], thresholdsOf: () => thresholds },
  changes,
  cache: new PolicyCache(db, changes, 30_000),
};
const rules = [
  {
    name: 'trusted agents',
    when: { all_of: [{ context: 'agent_id', prefix: 'agent-1' }, { surface_in: ['user_message'] }] },
    then: { action: 'allowed' as const, notify: [] },
  },
  {
    name: 'injection in tools',
    when: { all_of: [{ detector: 'prompt_injection', score_above: 0.7 }, { surface_in: ['tool_result', 'document'] }] },
    then: { action: 'blocked' as const, notify: [] },
  },
  {
    name: 'long documents',
    when: { all_of: [{ content_length_above: 3500 }, { not: { context: 'mcp_server', present: true } }] },
    then: { action: 'warned' as const, notify: [] },
  },
];
if (args.labels)
  rules.push({
    name: 'no SSNs',
    when: { all_of: [{ detector: 'pii', label_in: ['US_SSN'] } as never] },
    then: { action: 'blocked' as const, notify: [] },
  });
const policy = await createPolicy(
  deps,
  org.id,
  {
    name: 'bench',
    mode: 'enforce',
    enabled: true,
    rules,
    default_action: 'allowed',
    detector_config: { toxicity: { enabled: false } },
    allowed_mcp_servers: [],
    blocked_mcp_servers: [],
    allowed_mcp_tools: [],
    blocked_mcp_tools: [],
  },
  { id: 'bench', requestId: null },
);

const results: { run: number; scans: number; ms: number; scans_per_s: number }[] = [];
for (let run = 1; run <= Number(args.runs); run++) {
  const r = await backtestPolicy(
    deps,
    org.id,
    policy.id,
    { since: new Date(start - 1000), until: new Date(), samples: 5, max_scans: 10_000_000 },
    () => thresholds,
  );
  const perS = Math.round(r.scans_evaluated / (r.elapsed_ms / 1000));
  results.push({ run, scans: r.scans_evaluated, ms: r.elapsed_ms, scans_per_s: perS });
  say(
    `run ${run}: ${r.scans_evaluated} scans in ${r.elapsed_ms} ms → ${perS.toLocaleString('en')} scans/s (changed ${r.changed}; ${r.transitions.length} transitions)`,
  );
}
if (args.json) process.stdout.write(`${JSON.stringify({ scans: N, labels: args.labels, results })}\n`);
await db.end();
