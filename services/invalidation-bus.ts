import type { Logger } from '../lib/logger.ts';
import type { Redis } from '../lib/redis.ts';

/**
 * Tells every process that something cached changed (an API key was revoked, an organization's
 * policies changed), so cached copies are dropped. In-process always; across processes through Redis
 * pub/sub when REDIS_URL is set (without Redis, caches live at most 1 s, which bounds the delay instead).
 * One bus per topic; the message is the id whose cached state is stale.
 */
export interface InvalidationBus {
  /** Never throws: the change is already committed; a lost message is covered by `crossProcess`. */
  publish(id: string): Promise<void>;
  /** `listener(id)` for one id, `listener(null)` when everything cached must be dropped (lost messages). */
  subscribe(listener: (id: string | null) => void): void;
  /** Whether revocations from other processes reach us right now; while false, caches must stay ≤ 1 s. */
  crossProcess(): boolean;
  close(): Promise<void>;
}

export class LocalInvalidationBus implements InvalidationBus {
  protected listeners: Array<(id: string | null) => void> = [];
  async publish(id: string): Promise<void> {
    this.emit(id);
  }
  subscribe(listener: (id: string | null) => void): void {
    this.listeners.push(listener);
  }
  crossProcess(): boolean {
    return false;
  }
  protected emit(id: string | null): void {
    for (const l of this.listeners) l(id);
  }
  async close(): Promise<void> {}
}

export class RedisInvalidationBus extends LocalInvalidationBus {
  private readonly channel: string;
  private readonly subscriber: Redis;
  private live = false;
  private subscribedBefore = false;
  private subscribing = false;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    /** The Redis channel, e.g. `<prefix>api-key-revoked`. */
    channel: string,
    private readonly logger?: Logger,
  ) {
    super();
    this.channel = channel;
    this.subscriber = redis.duplicate({ autoResubscribe: false });
    this.subscriber.on('error', () => undefined); // reported by the main connection's handler
    this.subscriber.on('ready', () => this.join());
    this.subscriber.on('close', () => this.lost());
    this.subscriber.on('message', (_channel: string, id: string) => this.emit(id));
    this.heartbeat = setInterval(() => this.check(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private join(): void {
    if (this.subscribing) return;
    this.subscribing = true;
    this.subscriber.subscribe(this.channel).then(
      () => {
        this.subscribing = false;
        // Messages sent while we were away are lost: forget everything cached.
        if (this.subscribedBefore) this.emit(null);
        this.subscribedBefore = true;
        this.live = true;
      },
      () => {
        // Timed out (a silent server) or the connection dropped: the heartbeat tries again.
        this.subscribing = false;
      },
    );
  }

  /** Caches fall back to the short TTL (`cacheTtlMs`) from now on. */
  private lost(): void {
    // Our own disconnect at shutdown is not an outage.
    if (!this.live || this.closed) return;
    this.live = false;
    this.logger?.warn(
      { channel: this.channel },
      'invalidation bus: lost Redis, caches live at most 1 s until it is back',
    );
  }

  /**
   * A server that stops answering without closing the socket (stopped, a partition) never says
   * 'close': a PING each beat proves messages can still arrive. Subscribes again when a SUBSCRIBE
   * was lost that way.
   */
  private check(): void {
    if (this.subscriber.status !== 'ready') return;
    if (!this.live) return this.join();
    this.subscriber.ping().catch(() => this.lost());
  }

  override crossProcess(): boolean {
    return this.live;
  }

  override async publish(id: string): Promise<void> {
    this.emit(id);
    try {
      await this.redis.publish(this.channel, id);
    } catch (err) {
      this.logger?.warn(
        { err: (err as Error).message, channel: this.channel, id },
        'invalidation not published: redis unavailable',
      );
    }
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.subscriber.disconnect();
  }
}

/** How often a subscriber proves its connection still delivers (with the command timeout, a silent Redis is noticed within 1.5 s). */
const HEARTBEAT_MS = 1_000;

/**
 * How long a cache fed by `bus` may keep an entry: the configured TTL while changes from other
 * processes reach us, at most 1 s while they cannot.
 */
export function cacheTtlMs(bus: InvalidationBus, configuredMs: number): number {
  return bus.crossProcess() ? configuredMs : Math.min(configuredMs, 1_000);
}

/** The topics: one bus each. */
export const TOPICS = {
  apiKeyRevoked: 'api-key-revoked',
  policiesChanged: 'policies-changed',
  webhooksChanged: 'webhooks-changed',
} as const;

/** The bus for `topic`: across processes on Redis (channel `<prefix><topic>`) when there is one, else in-process. */
export function invalidationBus(
  redis: Redis | null,
  prefix: string,
  topic: (typeof TOPICS)[keyof typeof TOPICS],
  logger?: Logger,
): InvalidationBus {
  return redis ? new RedisInvalidationBus(redis, `${prefix}${topic}`, logger) : new LocalInvalidationBus();
}
