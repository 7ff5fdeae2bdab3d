import type { z } from 'zod';
import type { OrgRow } from '../../../store/orgs.ts';
import type { organizationSchema } from './schema.ts';

/** The Organization resource. */
export function presentOrganization(o: OrgRow): z.output<typeof organizationSchema> {
  return { id: o.id, slug: o.slug, display_name: o.display_name, created_at: o.created_at.toISOString() };
}
