import { z } from 'zod';
import type { CreateOrganizationInput } from '../../../services/org-lifecycle.ts';
import { instant, resource } from '../../resources.ts';

export const createOrganizationBody = z.strictObject({
  display_name: z
    .string()
    .min(1, 'must be 1 to 160 characters')
    .max(160, 'must be 1 to 160 characters')
    .refine((s) => s.trim().length > 0, 'must not be blank'),
}) satisfies z.ZodType<CreateOrganizationInput>;

export const organizationIdParams = z.object({
  org_id: z.string().regex(/^org_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be org_ followed by 26 Crockford base32 characters'),
});

/** The Organization resource (`presentOrganization`). */
export const organizationSchema = resource(
  'Organization',
  z.object({
    id: z.string().describe('`org_` followed by 26 Crockford base32 characters.'),
    slug: z.string().describe('A URL-safe name derived from the display name, unique across organizations.'),
    display_name: z.string(),
    created_at: instant,
  }),
);
