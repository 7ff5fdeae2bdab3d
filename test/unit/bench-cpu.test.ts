import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuPerRequest, sampleCpu, type CpuSample } from '../../benchmarks/cpu.ts';

const sample = (o: Partial<CpuSample>): CpuSample => ({
  serviceMain: 0,
  serviceThreads: 0,
  postgres: 0,
  loadGenerator: 0,
  machineBusy: 0,
  machineTotal: 0,
  ...o,
});

describe('benchmark CPU accounting', () => {
  it('divides each part by the responses (ms per request) and the machine by its total', () => {
    const before = sample({
      serviceMain: 10,
      serviceThreads: 5,
      postgres: 1,
      loadGenerator: 2,
      machineBusy: 100,
      machineTotal: 200,
    });
    const after = sample({
      serviceMain: 12,
      serviceThreads: 8,
      postgres: 1.5,
      loadGenerator: 2.25,
      machineBusy: 115,
      machineTotal: 220,
    });
    expect(cpuPerRequest(before, after, 1000)).toMatchObject({
      service_main_ms: 2,
      service_threads_ms: 3,
      postgres_ms: 0.5,
      load_generator_ms: 0.25,
      machine_ms: 15,
      machine_busy: 0.75,
    });
  });

  it('no sample, no accounting; no responses counts as one', () => {
    expect(cpuPerRequest(null, sample({}), 10)).toBeNull();
    expect(cpuPerRequest(sample({}), null, 10)).toBeNull();
    expect(cpuPerRequest(sample({}), sample({ serviceMain: 1 }), 0)?.service_main_ms).toBe(1000);
  });

  // vitest runs test files in forked processes (vitest.config.ts), so this loop runs on a main thread.
  it.runIf(existsSync('/proc/stat'))(
    "reads this process as the target: its main thread's CPU grows with work on it",
    () => {
      const a = sampleCpu(process.pid)!;
      const end = performance.now() + 200;
      let x = 0;
      while (performance.now() < end) x += Math.sqrt(x + 1);
      const b = sampleCpu(process.pid)!;
      expect(x).toBeGreaterThan(0);
      expect(b.serviceMain - a.serviceMain).toBeGreaterThan(0.05);
      expect(b.machineTotal).toBeGreaterThan(a.machineTotal);
      expect(b.machineBusy).toBeGreaterThanOrEqual(a.machineBusy);
      expect(sampleCpu(2 ** 22 + 12345)).toBeNull(); // no such process
    },
  );
});
