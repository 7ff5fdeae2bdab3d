import { afterAll, describe, expect, it } from 'vitest';
import { useBed } from './bed.ts';

const bed = useBed();
afterAll(() => bed.close());

describe('the bed', () => {
  it('serves through HAProxy, every node UP, the database reachable', async () => {
    const res = await fetch(`${bed.balancerUrl}/readyz`);
    expect(res.status).toBe(200);
    const stats = await bed.serverStats();
    expect([...stats.values()].map((s) => s.status)).toEqual(bed.nodes.map(() => 'UP'));
    expect((await bed.query<{ n: number }>('SELECT 1 AS n'))[0]!.n).toBe(1);
  });
});
