import { describe, expect, it } from 'vitest';
import { clusterWorkers } from '../../server/cluster.ts';
import { loadConfig } from '../../config.ts';

describe('clusterWorkers', () => {
  const config = loadConfig({});
  it('reads --cluster N and --cluster=N, else CLUSTER_WORKERS (0: one process)', () => {
    expect(clusterWorkers([], config)).toBe(0);
    expect(clusterWorkers([], loadConfig({ CLUSTER_WORKERS: '3' }))).toBe(3);
    expect(clusterWorkers(['--cluster', '2'], loadConfig({ CLUSTER_WORKERS: '3' }))).toBe(2);
    expect(clusterWorkers(['--cluster=4'], config)).toBe(4);
  });
  it.each([[['--cluster']], [['--cluster', '0']], [['--cluster', 'two']], [['--cluster=65']], [['--cluster', '1.5']]])(
    'refuses %j',
    (argv) => {
      expect(() => clusterWorkers(argv, config)).toThrow(/--cluster takes a number of processes from 1 to 64/);
    },
  );
  it('CLUSTER_WORKERS is bounded', () => {
    expect(() => loadConfig({ CLUSTER_WORKERS: '65' })).toThrow(/CLUSTER_WORKERS/);
  });
});
