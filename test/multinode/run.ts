/**
 * `npm run test:multinode [-- vitest args]`: the multi-node suite's entry point (docs/multinode.md).
 *
 * Installs Debian's haproxy, pgbouncer and iproute2 when missing, removes what dead runs left behind,
 * makes this run's client namespace (`cfmn<pid>-client`) and runs vitest inside it with
 * test/multinode/vitest.config.ts: the tests, and the webhook receiver they start, talk to the bed
 * from there, so no traffic of the bed uses the host's interfaces. Whatever happens to vitest, every
 * namespace of this run is removed before exiting with vitest's status.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bedNamespaces, createNamespace, destroyNamespace, removeStaleBeds } from './namespaces.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PACKAGES: Record<string, string> = { haproxy: 'haproxy', pgbouncer: 'pgbouncer', ip: 'iproute2' };

function installed(binary: string): boolean {
  return ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].some((dir) => existsSync(path.join(dir, binary)));
}

/** apt-get install of the missing packages, with a policy-rc.d that keeps them from starting services. */
function ensurePackages(): void {
  const missing = Object.entries(PACKAGES)
    .filter(([binary]) => !installed(binary))
    .map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0)
    throw new Error(`test:multinode needs root and these Debian packages: ${missing.join(' ')}`);
  console.log(`test:multinode: installing ${missing.join(' ')}`);
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-q', ...missing], { stdio: 'inherit', env });
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}

function main(): void {
  if (process.getuid?.() !== 0) throw new Error('test:multinode needs root (network namespaces)');
  ensurePackages();
  const stale = removeStaleBeds();
  if (stale.length > 0) console.log(`test:multinode: removed ${stale.length} namespaces of dead runs`);
  const prefix = `cfmn${process.pid}`;
  const clientNs = `${prefix}-client`;
  const cleanup = () => {
    for (const ns of bedNamespaces().filter((name) => name.startsWith(`${prefix}-`)))
      destroyNamespace(ns, [process.pid]);
    rmSync(`/tmp/${prefix}`, { recursive: true, force: true });
  };
  createNamespace(clientNs);
  const vitest = path.join(ROOT, 'node_modules', '.bin', 'vitest');
  const child = spawn(
    'ip',
    ['netns', 'exec', clientNs, vitest, 'run', '--config', 'test/multinode/vitest.config.ts', ...process.argv.slice(2)],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, MULTINODE_PREFIX: prefix } },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    cleanup();
    process.exit(code ?? (signal ? 1 : 0));
  });
}

try {
  main();
} catch (err) {
  console.error(`test:multinode: ${(err as Error).message}`);
  process.exit(1);
}
