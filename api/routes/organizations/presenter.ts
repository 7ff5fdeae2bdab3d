import type { OrgRow } from '../../../store/orgs.ts';
import { iso } from '../../present.ts';

/** The Organization resource. */
export function presentOrganization(o: OrgRow) {
  return { id: o.id, slug: o.slug, display_name: o.display_name, created_at: iso(o.created_at) };
}
