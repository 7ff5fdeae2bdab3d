import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtinCorpus, corpusHash } from '../../cli/redteam-corpus.ts';
import { buildApiKey, call } from '../support/harness.ts';
import { app, org, useRedteamApp } from './redteam-fixture.ts';

useRedteamApp();

const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'redteam', ...args], { timeout: 120_000 }).then(
    (r) => ({ code: 0, ...r }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );

describe('npm run cli -- redteam run', () => {
  it('runs the corpus through the target’s scans, records and finalizes the run, prints the table', async () => {
    const r = await cli('run', '--target', app.baseUrl, '--key', org.admin, '--authorized', '--operator', 'ci');
    expect(r.stderr).not.toMatch(/error/);
    // stderr is not a terminal here: no progress bar.
    expect(r.stderr).not.toMatch(/\[[#.]+\]/);
    expect(r.code).toBe(0);
    const runId = /Red-team run (rtr_[0-9A-HJKMNP-TV-Z]{26}): finished, verdict (\w+)/.exec(r.stdout)?.[1];
    expect(runId).toBeDefined();
    // The table: a header, one row per class, a total; caught + missed = probes on every row.
    expect(r.stdout).toMatch(/^class\s+probes\s+caught\s+missed$/m);
    const rows = [...r.stdout.matchAll(/^(\w+)\s+(\d+)\s+(\d+)\s+(\d+)$/gm)].map((m) => ({
      name: m[1]!,
      probes: Number(m[2]),
      caught: Number(m[3]),
      missed: Number(m[4]),
    }));
    expect(rows.map((x) => x.name)).toEqual([
      'direct_injection',
      'indirect_injection',
      'jailbreak',
      'pii_exfiltration',
      'obfuscation',
      'total',
    ]);
    for (const x of rows) expect(x.caught + x.missed).toBe(x.probes);
    expect(rows.at(-1)!.probes).toBe(builtinCorpus().length);
    expect(rows.at(-1)!.caught).toBeGreaterThan(0);

    const got = await call(app, 'GET', `/v1/redteam-runs/${runId}`, { key: org.admin });
    expect(got.body).toMatchObject({
      state: 'finished',
      written_authorization: true,
      upload_enabled: true,
      operator_id: 'ci',
      corpus_hashes: { builtin: corpusHash(builtinCorpus()) },
      redteam_version: 'redteam-cli 1.0.0',
    });
    expect(got.body.model_versions).toHaveProperty('prompt_injection');
    // One finding per class with misses.
    const findings = await call(app, 'GET', `/v1/redteam-runs/${runId}/findings`, { key: org.admin });
    const withMisses = rows.filter((x) => x.name !== 'total' && x.missed > 0).map((x) => x.name);
    expect(findings.body.data.map((f: { attack_class: string }) => f.attack_class).sort()).toEqual(withMisses.sort());
    // Every scanned probe recorded as a labeled event of the run.
    const { rows: events } = await app.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM labeled_events WHERE org_id = $1 AND run_id = $2 AND source = 'redteam'`,
      [org.orgId, runId],
    );
    expect(events[0]!.n).toBe(builtinCorpus().length);
  }, 120_000);

  it('takes a subset of classes and records nothing with --no-upload', async () => {
    const r = await cli(
      'run',
      '--target',
      app.baseUrl,
      '--key',
      org.admin,
      '--authorized',
      '--classes',
      'pii_exfiltration',
      '--no-upload',
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.classes.map((c: { attack_class: string }) => c.attack_class)).toEqual(['pii_exfiltration']);
    expect(out.uploaded).toBe(0);
    const got = await call(app, 'GET', `/v1/redteam-runs/${out.run_id}`, { key: org.admin });
    expect(got.body).toMatchObject({ state: 'finished', upload_enabled: false, verdict: out.verdict });
  }, 120_000);

  it('refuses to start without --authorized, and reports a key the target refuses', async () => {
    const noAuth = await cli('run', '--target', app.baseUrl, '--key', org.admin);
    expect(noAuth.code).toBe(2);
    expect(noAuth.stderr).toMatch(/--authorized is required/);
    const { secret } = await buildApiKey(app, org.orgId, { scopes: ['scans:write'] });
    const weak = await cli('run', '--target', app.baseUrl, '--key', secret, '--authorized');
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/403 auth.insufficient_scope/);
  }, 120_000);
});
