import type { Logger } from '../lib/logger.ts';
import type { Redis } from '../lib/redis.ts';

/**
 * Tells every process that an API key was revoked, so cached lookups drop it. In-process always;
 * across processes through Redis pub/sub when REDIS_URL is set (without Redis the auth cache lives
 * at most 1 s, which bounds the delay instead).
 */
export interface RevocationBus {
  /** Never throws: the revocation is already committed; a lost message is covered by `crossProcess`. */
  publish(keyId: string): Promise<void>;
  /** `onRevoked(id)` for one key, `onRevoked(null)` when every cached key must be dropped (lost messages). */
  subscribe(listener: (keyId: string | null) => void): void;
  /** Whether revocations from other processes reach us right now; while false, caches must stay ≤ 1 s. */
  crossProcess(): boolean;
  close(): Promise<void>;
}

export class LocalRevocationBus implements RevocationBus {
  protected listeners: Array<(keyId: string | null) => void> = [];
  async publish(keyId: string): Promise<void> {
    this.emit(keyId);
  }
  subscribe(listener: (keyId: string | null) => void): void {
    this.listeners.push(listener);
  }
  crossProcess(): boolean {
    return false;
  }
  protected emit(keyId: string | null): void {
    for (const l of this.listeners) l(keyId);
  }
  async close(): Promise<void> {}
}

export class RedisRevocationBus extends LocalRevocationBus {
  private readonly channel: string;
  private readonly subscriber: Redis;
  private live = false;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly logger?: Logger,
  ) {
    super();
    this.channel = `${prefix}api-key-revoked`;
    this.subscriber = redis.duplicate({ autoResubscribe: false });
    this.subscriber.on('error', () => undefined); // reported by the main connection's handler
    let subscribedBefore = false;
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => {
          // Messages sent while we were away are lost: forget everything cached.
          if (subscribedBefore) this.emit(null);
          subscribedBefore = true;
          this.live = true;
        },
        () => undefined,
      );
    });
    this.subscriber.on('close', () => {
      this.live = false;
    });
    this.subscriber.on('message', (_channel: string, keyId: string) => this.emit(keyId));
  }

  override crossProcess(): boolean {
    return this.live;
  }

  override async publish(keyId: string): Promise<void> {
    this.emit(keyId);
    try {
      await this.redis.publish(this.channel, keyId);
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message, key_id: keyId }, 'revocation not published: redis unavailable');
    }
  }

  override async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}
