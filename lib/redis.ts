import { Redis } from 'ioredis';

export type { Redis };

/**
 * A Redis connection that fails fast while Redis is down (no offline queue), so callers degrade at
 * once (the rate limiter fails open) instead of stalling requests; it reconnects in the background.
 */
export function createRedis(url: string, onError: (err: Error) => void): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', onError);
  return redis;
}

/** Resolves true once the connection is ready, false after `timeoutMs` (the caller runs degraded). */
export function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
