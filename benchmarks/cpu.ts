/**
 * Where the cores go during a run: CPU time read from /proc before and after, divided by the
 * responses, so a run says how many milliseconds of CPU one request costs in the service's main
 * thread(s), in its other threads (model workers, V8's compiler and GC helpers), in PostgreSQL and
 * in the load generator, and how busy the whole machine was. Linux only: elsewhere `sampleCpu`
 * returns null and runs carry no CPU section.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface CpuSample {
  /** Seconds of CPU (user + system) consumed so far, per part. */
  serviceMain: number;
  serviceThreads: number;
  postgres: number;
  loadGenerator: number;
  /** Whole machine, from /proc/stat: busy and total CPU seconds over all cores. */
  machineBusy: number;
  machineTotal: number;
}

/** Milliseconds of CPU per response, and the machine's load, over one run. */
export interface CpuPerRequest {
  service_main_ms: number;
  service_threads_ms: number;
  postgres_ms: number;
  load_generator_ms: number;
  /** Everything that ran on the machine, per response (includes the parts above). */
  machine_ms: number;
  /** Share of all cores busy during the run (1 = every core all the time). */
  machine_busy: number;
  cores: number;
}

const PROC = '/proc';
let ticks: number | undefined;
/** Clock ticks per second of /proc's counters. */
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** Fields after the `(comm)` of a /proc stat line (comm may hold spaces and parentheses). */
function statFields(path: string): string[] | null {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // the process or thread ended between listing and reading
  }
}

/** utime + stime in seconds (fields 14 and 15 of stat; 11 and 12 after the comm). */
function cpuSeconds(fields: string[] | null): number {
  return fields ? (Number(fields[11]) + Number(fields[12])) / clockTicks() : 0;
}

function pids(): number[] {
  return readdirSync(PROC)
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

/** `root` and its descendants (a --cluster primary and its workers). */
function tree(root: number, all: number[]): number[] {
  const children = new Map<number, number[]>();
  for (const pid of all) {
    const ppid = Number(statFields(`${PROC}/${pid}/stat`)?.[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(pid);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function comm(pid: number): string {
  try {
    return readFileSync(`${PROC}/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** CPU consumed so far by the service tree rooted at `servicePid`, PostgreSQL, this process and the machine; null off Linux. */
export function sampleCpu(servicePid: number): CpuSample | null {
  if (!existsSync(`${PROC}/stat`) || !existsSync(`${PROC}/${servicePid}`)) return null;
  const all = pids();
  let serviceMain = 0;
  let serviceThreads = 0;
  for (const pid of tree(servicePid, all)) {
    if (comm(pid) !== 'node') continue; // the service's own processes only (not an embedded PostgreSQL it started)
    let tids: string[];
    try {
      tids = readdirSync(`${PROC}/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const s = cpuSeconds(statFields(`${PROC}/${pid}/task/${tid}/stat`));
      if (Number(tid) === pid) serviceMain += s;
      else serviceThreads += s;
    }
  }
  let postgres = 0;
  for (const pid of all) if (comm(pid) === 'postgres') postgres += cpuSeconds(statFields(`${PROC}/${pid}/stat`));
  const usage = process.cpuUsage();
  const line = readFileSync(`${PROC}/stat`, 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …; busy = all but idle and iowait
  const total = line.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (line[3] ?? 0) + (line[4] ?? 0);
  return {
    serviceMain,
    serviceThreads,
    postgres,
    loadGenerator: (usage.user + usage.system) / 1e6,
    machineBusy: (total - idle) / clockTicks(),
    machineTotal: total / clockTicks(),
  };
}

const ms = (seconds: number, requests: number) => Math.round((seconds / Math.max(requests, 1)) * 1e6) / 1e3;

/** Per-response CPU between two samples; null when either is missing. */
export function cpuPerRequest(
  before: CpuSample | null,
  after: CpuSample | null,
  requests: number,
): CpuPerRequest | null {
  if (!before || !after) return null;
  const d = (k: keyof CpuSample) => after[k] - before[k];
  const total = d('machineTotal');
  return {
    service_main_ms: ms(d('serviceMain'), requests),
    service_threads_ms: ms(d('serviceThreads'), requests),
    postgres_ms: ms(d('postgres'), requests),
    load_generator_ms: ms(d('loadGenerator'), requests),
    machine_ms: ms(d('machineBusy'), requests),
    machine_busy: total > 0 ? Math.round((d('machineBusy') / total) * 1000) / 1000 : 0,
    cores: cpus().length,
  };
}

/** `CPU/request: main 1.05 ms, threads 1.1 ms, postgres 0.48 ms, load generator 0.4 ms; machine 3.2 ms, 98% busy` */
export function formatCpu(c: CpuPerRequest): string {
  return `CPU/request: service main ${c.service_main_ms} ms, service threads ${c.service_threads_ms} ms, postgres ${c.postgres_ms} ms, load generator ${c.load_generator_ms} ms; machine ${c.machine_ms} ms, ${Math.round(c.machine_busy * 100)}% of ${c.cores} cores busy`;
}
