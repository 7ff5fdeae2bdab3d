import { Redis } from 'ioredis';

export type { Redis };

/** A Redis connection that fails fast instead of queueing commands forever while Redis is down. */
export function createRedis(url: string, onError: (err: Error) => void): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', onError);
  return redis;
}
