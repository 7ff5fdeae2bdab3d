import type { Redis } from '../lib/redis.ts';

/**
 * Tells every process that an API key was revoked, so cached lookups drop it. In-process always;
 * across processes through Redis pub/sub when REDIS_URL is set (without Redis the auth cache lives
 * at most 1 s, which bounds the delay instead).
 */
export interface RevocationBus {
  publish(keyId: string): Promise<void>;
  /** `onRevoked(id)` for one key, `onRevoked(null)` when every cached key must be dropped (lost messages). */
  subscribe(listener: (keyId: string | null) => void): void;
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
  protected emit(keyId: string | null): void {
    for (const l of this.listeners) l(keyId);
  }
  async close(): Promise<void> {}
}

export class RedisRevocationBus extends LocalRevocationBus {
  private readonly channel: string;
  private readonly subscriber: Redis;

  constructor(private readonly redis: Redis, prefix: string) {
    super();
    this.channel = `${prefix}api-key-revoked`;
    this.subscriber = redis.duplicate();
    this.subscriber.on('error', () => undefined); // reported by the main connection's handler
    let connectedBefore = false;
    // A reconnect may have missed messages: forget everything cached.
    this.subscriber.on('ready', () => {
      if (connectedBefore) this.emit(null);
      connectedBefore = true;
    });
    this.subscriber.on('message', (_channel: string, keyId: string) => this.emit(keyId));
    void this.subscriber.subscribe(this.channel).catch(() => undefined);
  }

  override async publish(keyId: string): Promise<void> {
    this.emit(keyId);
    await this.redis.publish(this.channel, keyId);
  }

  override async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}
