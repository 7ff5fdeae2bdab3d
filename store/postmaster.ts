/**
 * What a cluster's postmaster.pid says, checked against the process table. PostgreSQL leaves the
 * file behind when its postmaster is killed, and by the time anyone looks the number in it may be a
 * zombie, or another process's: the kernel hands pids out again in turn, and a busy machine goes
 * round all of them within a minute (pid_max is 32768 by default). Taking either for the postmaster
 * left a killed cluster down for good, with nothing in any log.
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isPortFree } from './local-port.ts';

/** What a look at a cluster's postmaster.pid found. */
export interface PostmasterSeen {
  state: 'alive' | 'gone' | 'zombie' | 'another process' | 'no pid file' | 'incomplete pid file';
  pid: number | null;
  port: number | null;
}

/**
 * The postmaster `clusterDir`'s postmaster.pid names, and whether it is alive. When the file names a
 * zombie or another process, PostgreSQL would take it for a live postmaster and refuse to start, so
 * the stale file is removed.
 */
export async function lookAtPostmaster(clusterDir: string): Promise<PostmasterSeen> {
  const file = path.join(clusterDir, 'postmaster.pid');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return { state: 'no pid file', pid: null, port: null };
  }
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return { state: 'incomplete pid file', pid: null, port: null };
  let state: PostmasterSeen['state'] = await processState(pid);
  // Not our postmaster's command line, and nothing listens on its port: the number went to another process.
  if (state === 'alive' && !(await runsCluster(pid, clusterDir)) && (await isPortFree(port))) state = 'another process';
  if (state === 'zombie' || state === 'another process') await rm(file, { force: true });
  return { state, pid, port };
}

/** Whether `pid` runs, is gone, or is a zombie (dead, not yet reaped: `kill(pid, 0)` still succeeds). */
async function processState(pid: number): Promise<'alive' | 'gone' | 'zombie'> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return 'gone';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S …"; the state letter follows the last ')'.
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const letter = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return letter === 'Z' || letter === 'X' ? 'zombie' : 'alive';
  } catch {
    // No /proc (not Linux), or it vanished just now.
    return existsSync(`/proc/${pid}`) || process.platform !== 'linux' ? 'alive' : 'gone';
  }
}

/**
 * Whether `pid` is a postmaster of `clusterDir`: pg_ctl starts it as `postgres -D <clusterDir> …`,
 * and a postmaster keeps its command line (its children rewrite theirs). True where it cannot tell.
 */
async function runsCluster(pid: number, clusterDir: string): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').includes(clusterDir);
  } catch {
    return process.platform !== 'linux';
  }
}
