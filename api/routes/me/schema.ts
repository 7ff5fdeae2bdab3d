import { z } from 'zod';
import { SCOPES } from '../../../lib/scopes.ts';
import { USER_ROLES } from '../../../services/members.ts';
import { resource } from '../../resources.ts';

/** The Principal resource of `GET /v1/me`: who is calling, and what they may do. */
export const principalSchema = resource(
  'Principal',
  z.object({
    type: z.enum(['api_key', 'user']).describe('`api_key`: a scoped API key. `user`: an SSO session.'),
    org_id: z.string().nullable().describe('The organization acted in; null for an SSO session of none.'),
    org_display_name: z.string().nullable().describe('Its display name; null for an SSO session of none.'),
    actor_id: z
      .string()
      .nullable()
      .describe('The API key id (`ak_…`) or the member id (`usr_…`); null for an SSO session of no organization.'),
    scopes: z
      .array(z.enum(SCOPES))
      .describe('What the caller may do (a member: those of their role); none without an organization.'),
    deployment_mode: z.enum(['self_hosted', 'saas']),
    role: z.enum(USER_ROLES).optional().describe('A member only: their role in the organization.'),
    email: z
      .string()
      .nullable()
      .optional()
      .describe('SSO sessions only: the verified email of the session token; null when it carries none.'),
  }),
);
