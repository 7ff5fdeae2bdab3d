/**
 * Network namespaces of the multi-node test bed (iproute2's `ip netns`): one per part, each joined by
 * a veth pair to a bridge that lives in a namespace of its own, so no packet of the bed touches an
 * interface of the host. Every name starts with the run's prefix `cfmn<pid>`, the pid being the
 * `npm run test:multinode` wrapper's: a later run removes the namespaces of runs whose wrapper is gone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

/** The bed's own subnet: it exists only inside the bed's namespaces, so it cannot clash with the host's. */
export const SUBNET_PREFIX = '10.77.0';
export const SUBNET_BITS = 24;

const NAME = /^cfmn(\d+)-[a-z0-9]+$/;

/** Runs `ip` with `args`; returns its stdout. @throws with ip's stderr when it fails. */
export function ip(...args: string[]): string {
  try {
    return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`ip ${args.join(' ')}: ${stderr.trim() || (err as Error).message}`, { cause: err });
  }
}

/** The bed's namespace names now present (any run's). */
export function bedNamespaces(): string[] {
  return ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => NAME.test(name));
}

/** Whether a process `pid` runs (a zombie counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) !== 'Z';
  } catch {
    return false;
  }
}

/** Creates namespace `name` with its loopback up. */
export function createNamespace(name: string): void {
  ip('netns', 'add', name);
  ip('-n', name, 'link', 'set', 'lo', 'up');
}

/** The bridge namespace `bridgeNs` with bridge `br0` (no address: it only switches). */
export function createBridge(bridgeNs: string): void {
  createNamespace(bridgeNs);
  ip('-n', bridgeNs, 'link', 'add', 'br0', 'type', 'bridge');
  ip('-n', bridgeNs, 'link', 'set', 'br0', 'up');
}

/**
 * Joins namespace `ns` to the bridge: a veth pair whose bridge end (`port`, at most 15 characters)
 * sits in `bridgeNs` and whose other end is `eth0` in `ns`, holding `address`.
 */
export function attach(bridgeNs: string, ns: string, port: string, address: string): void {
  ip('-n', bridgeNs, 'link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
  ip('-n', bridgeNs, 'link', 'set', port, 'master', 'br0');
  ip('-n', bridgeNs, 'link', 'set', port, 'up');
  ip('-n', ns, 'addr', 'add', `${address}/${SUBNET_BITS}`, 'dev', 'eth0');
  ip('-n', ns, 'link', 'set', 'eth0', 'up');
}

/** The pids of every process inside namespace `ns`. */
export function pidsIn(ns: string): number[] {
  try {
    return ip('netns', 'pids', ns)
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Kills every process in namespace `ns` (SIGKILL: teardown does not wait for graceful stops; the
 * bed's data is thrown away), except `spare`, then deletes it. Never throws: teardown goes on.
 */
export function destroyNamespace(ns: string, spare: readonly number[] = []): void {
  for (const pid of pidsIn(ns)) {
    if (spare.includes(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  try {
    ip('netns', 'del', ns);
  } catch {
    // gone already
  }
}

/**
 * Removes what runs that ended without their teardown left behind: the namespaces (and their
 * processes) and run folders of every `cfmn<pid>` whose pid no longer runs.
 */
export function removeStaleBeds(): string[] {
  const removed: string[] = [];
  for (const ns of bedNamespaces()) {
    const pid = Number(NAME.exec(ns)?.[1]);
    if (alive(pid)) continue;
    destroyNamespace(ns);
    removed.push(ns);
    const dir = `/tmp/cfmn${pid}`;
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
  return removed;
}
