/**
 * The CLI as its binary (`bin/content-firewall.js`, what `npx content-firewall` runs): help with every
 * command and scope, each command's own help and flags, `--json` output that is JSON alone on stdout
 * (no npm banner, so `| jq` works), and `keys rotate`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../lib/scopes.ts';
import { runCli, runCliWith } from '../support/cli.ts';
import { buildApiKey, buildOrg, call, startTestApp, TEST_MASTER_SECRET } from '../support/harness.ts';

// Each CLI run is a fresh Node process (a few seconds on a loaded machine).
const SLOW = { timeout: 300_000 };

const cli = async (...args: string[]) => {
  const r = await runCli(...args);
  if (r.code !== 0) throw Object.assign(new Error(`exit ${r.code}: ${r.stderr}`), r);
  return r;
};

/** Every command and flags its help must mention. */
const COMMANDS: Record<string, string[]> = {
  bootstrap: ['--org', '--force', '--json'],
  'orgs list': ['--json'],
  'orgs set-legacy-quota': ['--org', '--quota'],
  'keys list': ['--org'],
  'keys create': ['--org', '--name', '--scopes', '--environment', '--expires-at', '--no-expiry'],
  'keys revoke': ['--org', '--id'],
  'keys rotate': ['--org', '--id'],
  scan: ['--file', '--surface', '--tier', '--policy', '--fail-on', '--target', '--key', 'CONTENT_FIREWALL_URL'],
  'policies list': ['--target', '--key', 'CONTENT_FIREWALL_API_KEY'],
  'policies apply': ['FILE', '--dry-run', '--target', '--key'],
  'redteam run': ['--target', '--key', '--authorized', '--classes'],
};

describe('help', SLOW, () => {
  it('help lists the commands and every scope, exit 0', async () => {
    const { stdout } = await cli('help');
    expect(stdout).toMatch(/^Content firewall operator CLI/);
    for (const c of Object.keys(COMMANDS)) expect(stdout).toContain(`  ${c} `);
    for (const s of SCOPES) expect(stdout).toContain(s);
  });

  it('<command> --help, <command> -h and help <command> print that command’s usage, exit 0', async () => {
    const runs = Object.entries(COMMANDS).map(([name, flags]) => ({
      name,
      flags,
      args: [...name.split(' '), '--help'],
    }));
    runs.push({ name: 'keys rotate', flags: COMMANDS['keys rotate']!, args: ['keys', 'rotate', '-h'] });
    runs.push({ name: 'policies apply', flags: COMMANDS['policies apply']!, args: ['help', 'policies', 'apply'] });
    for (const { name, flags, args } of runs) {
      const r = await runCli(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: npx content-firewall\\n {2}${name}\\b`));
      for (const f of flags) expect(r.stdout, name).toContain(f);
      // Only this command's block.
      const shown = Object.keys(COMMANDS).filter((c) => new RegExp(`^ {2}${c}( |$)`, 'm').test(r.stdout));
      expect(shown).toEqual([name]);
    }
  });

  it('an unknown flag exits 2 with the command’s usage on stderr, stdout empty', async () => {
    for (const args of [
      ['keys', 'list', '--scopes', 'admin'],
      ['scan', '--bogus'],
      ['policies', 'apply', 'a.json', 'b.json'],
    ]) {
      const r = await runCli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^error: .*\\n\\nUsage: npx content-firewall\\n {2}${args[0]}`));
    }
  });

  it('an unknown flag is named in a balanced message', async () => {
    const r = await runCli('scan', '--bogus');
    expect(r.stderr.split('\n')[0]).toBe('error: unknown flag: --bogus');
  });

  it('--version prints the package version alone, exit 0', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const r = await runCli('--version');
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('an unknown command or a group without its command exits 2', async () => {
    const unknown = await runCli('keys', 'burn');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown command: keys burn/);
    const group = await runCli('keys');
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('keys rotate --org ORG');
    expect((await runCli('keys', '--help')).code).toBe(0);
  });
});

describe('operator commands', SLOW, () => {
  it('--json prints JSON only on stdout', async () => {
    const name = `Binary ${randomBytes(4).toString('hex')}`;
    const boot = await cli('bootstrap', '--org', name, '--json');
    const created = JSON.parse(boot.stdout);
    expect(created.org.display_name).toBe(name);
    expect(created.api_key.secret).toMatch(/^sk_/);
    const listed = JSON.parse((await cli('orgs', 'list', '--json')).stdout);
    expect(listed.data.map((o: { id: string }) => o.id)).toContain(created.org_id);
  });

  it('a usage error exits 2 with the usage on stderr, stdout empty', async () => {
    const r = await runCli('keys', 'create', '--json');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--org is required');
  });

  it('keys rotate: a new secret that works, the old key revoked at once; a revoked key is refused', async () => {
    const app = await startTestApp();
    try {
      const org = await buildOrg(app);
      const { key, secret } = await buildApiKey(app, org.orgId, { name: 'ci', scopes: ['scans:read'] });
      expect((await call(app, 'GET', '/v1/me', { key: secret })).status).toBe(200);
      // The app's master secret, so the keys the CLI mints authenticate there.
      const env = { SECRET_KEY: TEST_MASTER_SECRET };
      const r = await runCliWith({ env }, 'keys', 'rotate', '--org', org.orgId, '--id', key.id, '--json');
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ org_id: org.orgId, rotated_from: key.id });
      expect(out.api_key).toMatchObject({ name: 'ci', scopes: ['scans:read'], rotated_from: key.id });
      expect((await call(app, 'GET', '/v1/me', { key: out.api_key.secret })).status).toBe(200);
      // Revoked: the app's auth cache (1 s without Redis) forgets the old key.
      await expect
        .poll(async () => (await call(app, 'GET', '/v1/me', { key: secret })).status, { timeout: 5000 })
        .toBe(401);
      const again = await runCliWith({ env }, 'keys', 'rotate', '--org', org.orgId, '--id', key.id);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^error: .*revoked/i);
      const old = await call(app, 'GET', `/v1/api-keys/${key.id}`, { key: org.admin });
      expect(old.body.revoked_at).not.toBeNull();
    } finally {
      await app.close();
    }
  });

  it("keys rotate: another organization's key is not found and stays as it was", async () => {
    const app = await startTestApp();
    try {
      const mine = await buildOrg(app);
      const theirs = await buildOrg(app);
      const { key, secret } = await buildApiKey(app, theirs.orgId, { name: 'theirs', scopes: ['scans:read'] });
      const env = { SECRET_KEY: TEST_MASTER_SECRET };
      const r = await runCliWith({ env }, 'keys', 'rotate', '--org', mine.orgId, '--id', key.id, '--json');
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^error: No API key ${key.id}`));
      const still = await call(app, 'GET', `/v1/api-keys/${key.id}`, { key: theirs.admin });
      expect(still.body).toMatchObject({ revoked_at: null, rotated_from: null });
      expect((await call(app, 'GET', '/v1/me', { key: secret })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
