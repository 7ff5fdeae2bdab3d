import type { DetectorCatalog } from '../../engine/policy.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../store/db.ts';
import type { InvalidationBus } from '../invalidation-bus.ts';
import type { PolicyCache } from './cache.ts';

/** What every policy use case is given (built once by server/services.ts). */
export interface PolicyDeps {
  db: Db;
  clock: Clock;
  catalog: DetectorCatalog;
  /** Carries organization ids whose policies changed; every process's cache listens. */
  changes: InvalidationBus;
  cache: PolicyCache;
}
