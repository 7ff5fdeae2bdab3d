import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../lib/clock.ts';
import { MemoryRateLimiter } from '../../services/rate-limiter.ts';

describe('MemoryRateLimiter', () => {
  it('counts per bucket in fixed windows aligned to the epoch', async () => {
    const clock = new ManualClock('2026-01-01T00:00:10.000Z');
    const rl = new MemoryRateLimiter(clock);
    const r1 = await rl.hit('a', 2, 60);
    expect(r1).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 50 });
    expect((await rl.hit('a', 2, 60)).allowed).toBe(true);
    const r3 = await rl.hit('a', 2, 60);
    expect(r3).toMatchObject({ allowed: false, remaining: 0 });
    expect((await rl.hit('b', 2, 60)).allowed).toBe(true);
    clock.advance(50_000); // next window
    expect(await rl.hit('a', 2, 60)).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 60 });
    await rl.close();
  });

  it('peeks without counting: whether one more hit would be allowed', async () => {
    const clock = new ManualClock('2026-01-01T00:00:10.000Z');
    const rl = new MemoryRateLimiter(clock);
    expect(await rl.peek('a', 2, 60)).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 50 });
    expect(await rl.peek('a', 2, 60)).toMatchObject({ allowed: true, remaining: 2 });
    await rl.hit('a', 2, 60);
    expect(await rl.peek('a', 2, 60)).toMatchObject({ allowed: true, remaining: 1 });
    await rl.hit('a', 2, 60);
    expect(await rl.peek('a', 2, 60)).toMatchObject({ allowed: false, remaining: 0 });
    clock.advance(50_000); // next window
    expect(await rl.peek('a', 2, 60)).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 60 });
    await rl.close();
  });
});
