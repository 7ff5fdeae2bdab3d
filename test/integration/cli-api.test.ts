/**
 * The CLI's API commands against a running app: `scan` (stdin, --file, --json, exit codes by
 * --fail-on, the environment variables) and `policies list|apply` (create, re-apply unchanged,
 * update, a file the API refuses).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrg, call, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { runCliWith, type CliOptions } from '../support/cli.ts';

let app: TestApp;
let org: TestOrg;
const dir = mkdtempSync(join(tmpdir(), 'cf-cli-'));

beforeAll(async () => {
  app = await startTestApp();
  org = await buildOrg(app);
});
afterAll(async () => app?.close());

/** The CLI with `--target` and `--key` of the test app. */
const cli = (o: CliOptions, ...args: string[]) => runCliWith(o, ...args, '--target', app.baseUrl, '--key', org.admin);

/** A policy that decides `action` for anything no threshold catches. */
async function policyDeciding(action: string): Promise<string> {
  const r = await call(app, 'POST', '/v1/policies', {
    key: org.admin,
    json: { name: `decides ${action} ${Math.random()}`, rules: [], default_action: action },
  });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

const fileWith = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

// Each CLI run is a fresh Node process (a few seconds on a loaded machine).
const SLOW = { timeout: 180_000 };

describe('scan', SLOW, () => {
  it('scans stdin and prints the decision and a row per finding', async () => {
    const r = await cli({ stdin: 'Write to alice@example.com please' }, 'scan', '--fail-on', 'never');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Scan scan_[0-9A-Z]{26}: (ALLOWED|WARNED|FLAGGED|BLOCKED) \(/);
    expect(r.stdout).toMatch(/^detector\s+label\s+score\s+span\s+excerpt$/m);
    expect(r.stdout).toMatch(/^pii\s+\S+\s+[01]\.\d\d\s+9-26\s+"alice@example\.com"$/m);
  });

  it('--file and --json: the API’s scan resource alone on stdout', async () => {
    const allow = await policyDeciding('allowed');
    const file = fileWith('hello.txt', 'Hello there, how are you?');
    const r = await cli({}, 'scan', '--file', file, '--surface', 'document', '--policy', allow, '--json');
    expect(r.code).toBe(0);
    const scan = JSON.parse(r.stdout);
    expect(scan).toMatchObject({ surface: 'document', decision: { action: 'allowed', policy_id: allow } });
    const got = await call(app, 'GET', `/v1/scans/${scan.id}`, { key: org.admin });
    expect(got.body.id).toBe(scan.id);
  });

  it('exits 3 when the decision reaches --fail-on (default blocked), 0 below it', async () => {
    const block = await policyDeciding('blocked');
    const flag = await policyDeciding('flagged');
    const blocked = await cli({ stdin: 'hello' }, 'scan', '--policy', block);
    expect(blocked.code).toBe(3);
    expect(blocked.stdout).toMatch(/BLOCKED \(default_action; policy pol_/);
    expect((await cli({ stdin: 'hello' }, 'scan', '--policy', flag)).code).toBe(0);
    expect((await cli({ stdin: 'hello' }, 'scan', '--policy', flag, '--fail-on', 'flagged')).code).toBe(3);
    expect((await cli({ stdin: 'hello' }, 'scan', '--policy', block, '--fail-on', 'never')).code).toBe(0);
  });

  it('takes the target and key from CONTENT_FIREWALL_URL and CONTENT_FIREWALL_API_KEY', async () => {
    const env = { CONTENT_FIREWALL_URL: app.baseUrl, CONTENT_FIREWALL_API_KEY: org.admin };
    const r = await runCliWith({ stdin: 'hello', env }, 'scan', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).kind).toBe('content');
  });

  it('a refused scan exits 1 with the problem; a bad flag value exits 2', async () => {
    const r = await runCliWith({ stdin: 'hi' }, 'scan', '--target', app.baseUrl, '--key', 'sk_live_nope');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: POST \/v1\/scans: 401 /);
    const bad = await cli({ stdin: 'hi' }, 'scan', '--surface', 'nowhere');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--surface must be one of user_message');
    const missing = await runCliWith({ stdin: 'hi' }, 'scan');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--target (or CONTENT_FIREWALL_URL) is required');
  });

  it('an empty input (file or stdin, or only whitespace) exits 2 before any call: a CI gate never passes it', async () => {
    const file = fileWith('empty.txt', '');
    // A target nobody listens on: a scan call would exit 1 (unreachable), not 2.
    const nowhere = ['--target', 'http://127.0.0.1:9', '--key', org.admin];
    for (const [o, args, what] of [
      [{}, ['--file', file], file],
      [{ stdin: '' }, [], 'stdin'],
      [{ stdin: ' \n\t\n' }, [], 'stdin'],
    ] as const) {
      const r = await runCliWith(o, 'scan', ...args, ...nowhere, '--fail-on', 'never');
      expect(r.code, what).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toBe(`error: nothing to scan: ${what} is empty (or only whitespace)`);
    }
  });
});

describe('policies', SLOW, () => {
  const policy = (over: Record<string, unknown> = {}) => ({
    name: `CLI policy ${Math.random()}`,
    rules: [
      {
        id: 'pii-in-output',
        name: 'PII in output',
        when: { all_of: [{ surface_in: ['assistant_output'] }, { score_above: 0.5, detector: 'pii' }] },
        then: { action: 'blocked' },
      },
    ],
    default_action: 'allowed',
    detector_config: { pii: { flag_above: 0.7 } },
    ...over,
  });

  it('apply creates, re-applying changes nothing, a changed file updates; list shows it', async () => {
    const doc = policy();
    const file = fileWith('policy.json', JSON.stringify(doc));
    const created = await cli({}, 'policies', 'apply', file, '--json');
    expect(created.code).toBe(0);
    const first = JSON.parse(created.stdout);
    expect(first).toMatchObject({ action: 'created', policy: { name: doc.name } });

    const again = await cli({}, 'policies', 'apply', file);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(`${first.policy.id} ${JSON.stringify(doc.name)} unchanged`);

    writeFileSync(file, JSON.stringify({ ...doc, mode: 'observe' }));
    const dry = await cli({}, 'policies', 'apply', file, '--dry-run');
    expect(dry.stdout).toContain('would be updated: mode');
    const updated = JSON.parse((await cli({}, 'policies', 'apply', file, '--json')).stdout);
    expect(updated).toMatchObject({ action: 'updated', changes: ['mode'], policy: { id: first.policy.id } });
    expect(updated.policy.revision_id).not.toBe(first.policy.revision_id);
    const got = await call(app, 'GET', `/v1/policies/${first.policy.id}`, { key: org.admin });
    expect(got.body.mode).toBe('observe');

    // A file saved from the API (id, revision, timestamps) applies as is.
    const saved = fileWith('saved.json', JSON.stringify(got.body));
    expect((await cli({}, 'policies', 'apply', saved)).stdout).toContain('unchanged');

    const list = await cli({}, 'policies', 'list');
    expect(list.stdout).toMatch(/^id\s+mode\s+enabled\s+default\s+rules\s+name$/m);
    expect(list.stdout).toMatch(new RegExp(`^${first.policy.id}\\s+observe\\s+yes\\s+no\\s+1\\s+CLI policy`, 'm'));
    const listed = JSON.parse((await cli({}, 'policies', 'list', '--json')).stdout);
    expect(listed.data.map((p: { id: string }) => p.id)).toContain(first.policy.id);
  });

  it('a file the API refuses prints the problem and each invalid field, exit 1', async () => {
    const file = fileWith('bad.json', JSON.stringify(policy({ default_action: 'explode', rules: [{}] })));
    const r = await cli({}, 'policies', 'apply', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: POST \/v1\/policies: 400 request\.validation_failed: /);
    expect(r.stderr).toMatch(/^ {2}- default_action: /m);
    expect(r.stderr).toMatch(/^ {2}- rules\.0\.name: /m);
    expect(r.stderr).toMatch(/\(request id req_/);
  });

  it('a file that is not JSON exits 1 naming it', async () => {
    const file = fileWith('broken.json', '{ nope');
    const r = await cli({}, 'policies', 'apply', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${file}: `);
  });
});
