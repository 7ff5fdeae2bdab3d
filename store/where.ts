import { idFloor, type IdKind } from '../lib/ids.ts';

/**
 * A conjunction of filters with numbered parameters, for list queries whose filters are optional:
 * `add('agent_id = ?', v)` appends `agent_id = $n` and its value, and does nothing when `v` is
 * undefined. The organization filter comes first, always.
 */
export class Where {
  readonly args: unknown[];
  private readonly parts: string[];

  constructor(orgId: string) {
    this.args = [orgId];
    this.parts = ['org_id = $1'];
  }

  /** Appends `sql` with its one `?` bound to `value`; skipped when `value` is undefined. */
  add(sql: string, value: unknown): this {
    if (value === undefined) return this;
    this.parts.push(sql.replace('?', this.param(value)));
    return this;
  }

  /**
   * The keyset window of a newest-first list over time-ordered ids: `since` (inclusive) and `until`
   * (exclusive) become id bounds, `beforeId` the cursor's position.
   */
  idWindow(kind: IdKind, since: Date | undefined, until: Date | undefined, beforeId: string | undefined): this {
    if (since !== undefined) this.add('id >= ?', idFloor(kind, since));
    if (until !== undefined) this.add('id < ?', idFloor(kind, until));
    return this.add('id < ?', beforeId);
  }

  /** Binds one more value and returns its placeholder (`$n`). */
  param(value: unknown): string {
    this.args.push(value);
    return `$${this.args.length}`;
  }

  toString(): string {
    return this.parts.join(' AND ');
  }
}
