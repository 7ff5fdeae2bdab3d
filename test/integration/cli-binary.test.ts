/**
 * The operator CLI as its binary (`bin/content-firewall.js`, what `npx content-firewall` runs): help
 * with every scope, and `--json` output that is JSON alone on stdout (no npm banner), so `| jq` works.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { SCOPES } from '../../lib/scopes.ts';
import { runCli } from '../support/cli.ts';

const cli = async (...args: string[]) => {
  const r = await runCli(...args);
  if (r.code !== 0) throw Object.assign(new Error(`exit ${r.code}: ${r.stderr}`), r);
  return r;
};

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
  const r = await runCli('keys', 'create', '--json');
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('--org is required');
});
