/**
 * What a cluster's postmaster.pid says, checked against the process table: PostgreSQL leaves the
 * file behind when its postmaster is killed, and the number in it may be a zombie by the time anyone
 * looks.
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';

/** What a look at a cluster's postmaster.pid found. */
export interface PostmasterSeen {
  state: 'alive' | 'gone' | 'zombie' | 'no pid file' | 'incomplete pid file';
  pid: number | null;
  port: number | null;
}

/**
 * The postmaster `clusterDir`'s postmaster.pid names, and whether it is alive. When the file names a
 * zombie (a killed postmaster not yet reaped: pg_ctl starts it detached, so its parent is PID 1, which
 * in a container may reap late or never), PostgreSQL would take it for a live postmaster and refuse
 * to start, so the stale file is removed.
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
  const state = await processState(pid);
  if (state === 'zombie') await rm(file, { force: true });
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
