import { Redis } from 'ioredis';

export type { Redis };

/**
 * How long a command may wait for its reply. Redis answers in well under a millisecond; a server that
 * is up but silent (stopped, swapping, a partition that drops packets) never closes the socket, so
 * without this bound every request that touches Redis would wait for it forever.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * A Redis connection that fails fast while Redis is down (no offline queue) or silent (a command
 * timeout), so callers degrade at once (the rate limiter counts in the process) instead of stalling
 * requests; it reconnects in the background.
 */
export function createRedis(url: string, onError: (err: Error) => void): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
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
