/**
 * The engine's ResultCache: detector results of repeated texts (system prompts, tool descriptions,
 * documents scanned again). A local LRU bounded by bytes, and with Redis a second level shared by
 * every process: local first, then one Redis GET with a short bound; a miss computes and stores in
 * both (Redis in the background, with a TTL). Redis being down or slow only turns hits into misses.
 *
 * Neither level keeps the text an item matched (raw content, stored only when a scan captures it):
 * an entry answers only the exact text of its key, so a hit takes each item's text from its span
 * over that text again.
 */
import { z } from 'zod';
import type { DetectorResult, FindingItem } from '../engine/detector.ts';
import type { ResultCache } from '../engine/pipeline.ts';
import type { Redis } from '../lib/redis.ts';

/** How long a scan waits for Redis's answer before it computes instead (Redis answers in well under 1 ms). */
export const REDIS_GET_TIMEOUT_MS = 25;

// A Map entry's own cost beside its two strings (UTF-16: 2 bytes a code unit), roughly.
const ENTRY_OVERHEAD_BYTES = 96;

/** A string LRU bounded by the approximate bytes of its keys and values. */
export class ByteLru {
  private readonly entries = new Map<string, string>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value under `key`, now the most recently used. */
  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores `value`, evicting the least recently used entries past the bound; one larger than the bound is not kept. */
  set(key: string, value: string): void {
    const size = sizeOf(key, value);
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.used -= sizeOf(key, old);
    }
    if (size > this.maxBytes) return;
    this.entries.set(key, value);
    this.used += size;
    for (const [k, v] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(k);
      this.used -= sizeOf(k, v);
    }
  }
}

function sizeOf(key: string, value: string): number {
  return 2 * (key.length + value.length) + ENTRY_OVERHEAD_BYTES;
}

const thresholds = z.object({ warn_above: z.number(), flag_above: z.number(), block_above: z.number() });
const item = z.object({
  label: z.string(),
  confidence: z.number(),
  source: z.string(),
  span: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});
const results = z.array(
  z.object({
    detector: z.string(),
    score: z.number().min(0).max(1),
    items: z.array(item),
    thresholds: thresholds.optional(),
    note: z.string().optional(),
  }),
);

/** A finding item as kept: without the text it matched. */
type KeptItem = Omit<FindingItem, 'text'>;
type KeptResult = Omit<DetectorResult, 'items'> & { items: KeptItem[] };

/** The results as kept: every item without its matched text. */
export function keptResults(found: readonly DetectorResult[]): KeptResult[] {
  return found.map((r) => ({ ...r, items: r.items.map(({ text: _matched, ...kept }) => kept) }));
}

/** Kept results as the engine's again: each item's text is its span of the scanned text. */
function withTexts(kept: readonly KeptResult[], text: string): DetectorResult[] {
  return kept.map((r) => ({ ...r, items: r.items.map((i) => ({ text: text.slice(i.span[0], i.span[1]), ...i })) }));
}

/**
 * A stored value read back from Redis (kept results, their items without text), or undefined when it
 * is not a list of detector results (a corrupt value is a miss).
 */
export function parseStoredResults(value: string): KeptResult[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return undefined;
  }
  const parsed = results.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

export type CacheLevel = 'local' | 'redis';

export interface ResultCacheObserver {
  lookup(result: 'hit' | 'miss', level: CacheLevel): void;
  /** A Redis command that failed, timed out, or was not sent because Redis is not connected. */
  redisFailed(op: 'get' | 'set'): void;
  /** The local LRU's approximate size after a change. */
  bytes(bytes: number): void;
}

export interface ResultCacheOptions {
  maxBytes: number;
  /** The shared level, or null for the local LRU alone. */
  redis: Redis | null;
  /** REDIS_KEY_PREFIX */
  prefix: string;
  ttlSeconds: number;
  observer?: ResultCacheObserver;
  redisTimeoutMs?: number;
}

/** The local LRU, then Redis when configured. Values are the results' JSON: every hit is a fresh copy. */
export class TwoLevelResultCache implements ResultCache {
  readonly local: ByteLru;

  constructor(private readonly opts: ResultCacheOptions) {
    this.local = new ByteLru(opts.maxBytes);
  }

  get(key: string, text: string): DetectorResult[] | undefined | Promise<DetectorResult[] | undefined> {
    const value = this.local.get(key);
    if (value !== undefined) {
      this.opts.observer?.lookup('hit', 'local');
      return withTexts(JSON.parse(value) as KeptResult[], text);
    }
    if (!this.opts.redis) {
      this.opts.observer?.lookup('miss', 'local');
      return undefined;
    }
    return this.fromRedis(this.opts.redis, key, text);
  }

  set(key: string, found: readonly DetectorResult[]): void {
    const value = JSON.stringify(keptResults(found));
    this.keep(key, value);
    const redis = this.opts.redis;
    if (!redis) return;
    if (redis.status !== 'ready') {
      this.opts.observer?.redisFailed('set');
      return;
    }
    redis
      .set(this.redisKey(key), value, 'EX', this.opts.ttlSeconds)
      .catch(() => this.opts.observer?.redisFailed('set'));
  }

  private async fromRedis(redis: Redis, key: string, text: string): Promise<DetectorResult[] | undefined> {
    const value = redis.status === 'ready' ? await this.redisGet(redis, key) : undefined;
    if (value === undefined) this.opts.observer?.redisFailed('get');
    const found = value ? parseStoredResults(value) : undefined;
    this.opts.observer?.lookup(found ? 'hit' : 'miss', 'redis');
    if (!found) return undefined;
    // re-serialised: an entry an earlier version wrote with its items' text is kept here without it
    this.keep(key, JSON.stringify(found));
    return withTexts(found, text);
  }

  /** The stored string, null when Redis has none, undefined when Redis did not answer in time. */
  private async redisGet(redis: Redis, key: string): Promise<string | null | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, this.opts.redisTimeoutMs ?? REDIS_GET_TIMEOUT_MS, undefined);
    });
    try {
      // a rejection after the timeout won the race is still handled by race()
      return await Promise.race([redis.get(this.redisKey(key)), late]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private keep(key: string, value: string): void {
    this.local.set(key, value);
    this.opts.observer?.bytes(this.local.bytes);
  }

  private redisKey(key: string): string {
    return `${this.opts.prefix}scan-results:${key}`;
  }
}
