/**
 * The operator CLI as its binary (`bin/content-firewall.js`, what `npx content-firewall` runs): help
 * with every scope, and `--json` output that is JSON alone on stdout (no npm banner), so `| jq` works.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { expect, inject, it } from 'vitest';
import { SCOPES } from '../../lib/scopes.ts';

const run = promisify(execFile);

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    SECRET_KEY: 'cli-test-secret-0123456789abcdef',
    LOG_LEVEL: 'warn',
  };
  delete e.REDIS_URL;
  return e;
}

const cli = (...args: string[]) =>
  run(process.execPath, ['bin/content-firewall.js', ...args], { env: env(), timeout: 60_000 });

it('help lists the commands and every scope, exit 0', async () => {
  const { stdout } = await cli('help');
  expect(stdout).toMatch(/^Content firewall operator CLI/);
  for (const c of ['bootstrap', 'orgs list', 'keys create', 'keys revoke', 'redteam run']) expect(stdout).toContain(c);
  for (const s of SCOPES) expect(stdout).toContain(s);
});

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
  const err = await cli('keys', 'create', '--json').then(
    () => null,
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(err?.code).toBe(2);
  expect(err?.stdout).toBe('');
  expect(err?.stderr).toContain('--org is required');
});
