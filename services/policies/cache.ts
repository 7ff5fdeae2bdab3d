import type { CompiledPolicy } from '../../engine/policy.ts';
import { compilePolicy } from '../../engine/policy.ts';
import { Errors } from '../../lib/errors.ts';
import type { Db } from '../../store/db.ts';
import * as store from '../../store/policies.ts';
import type { InvalidationBus } from '../invalidation-bus.ts';
import { OrgCache } from '../org-cache.ts';

/**
 * The scan path's view of policies: compiled, per organization, through an `OrgCache` (reloaded after
 * `ttlMs`, dropped at once when the organization's policies change, misses cached too).
 */
export class PolicyCache {
  private readonly cache: OrgCache<CompiledPolicy | null>;

  constructor(
    private readonly db: Db,
    changes: InvalidationBus,
    ttlMs: number,
    maxOrgs = 10_000,
  ) {
    this.cache = new OrgCache(changes, ttlMs, maxOrgs);
  }

  /**
   * The policy that decides a scan: `policyId` when given (404 when unknown; when disabled, the
   * default applies instead), else the organization's default when it is enabled, else null
   * (built-in thresholds).
   * @throws ProblemError 404 `policies.not_found`.
   */
  async resolve(orgId: string, policyId: string | undefined): Promise<CompiledPolicy | null> {
    if (policyId !== undefined) {
      const named = await this.load(orgId, policyId);
      if (!named) throw Errors.policyNotFound(policyId);
      if (named.enabled) return named;
    }
    const fallback = await this.load(orgId, '');
    return fallback?.enabled ? fallback : null;
  }

  /** `key` '' is the default policy. */
  private load(orgId: string, key: string): Promise<CompiledPolicy | null> {
    return this.cache.get(orgId, key, () =>
      (key === '' ? store.getDefaultPolicy(this.db, orgId) : store.getPolicy(this.db, orgId, key)).then((row) =>
        row ? compilePolicy(row) : null,
      ),
    );
  }
}
