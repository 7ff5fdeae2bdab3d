import { z } from 'zod';
import { ACTIONS, SURFACES } from '../../../engine/detector.ts';
import { AUDIT_KINDS, AUDIT_RESOURCE_TYPES, type ListAuditEventsInput } from '../../../services/audit.ts';
import { instant, shortString, windowInOrder } from '../../fields.ts';
import { pageQueryUpTo } from '../../pagination.ts';

/** The audit page is larger than other lists: up to 10,000 events (JSON or CSV). */
export const AUDIT_PAGE_MAX = 10_000;

export const listAuditEventsQuery = pageQueryUpTo(AUDIT_PAGE_MAX)
  .extend({
    kind: z.enum(AUDIT_KINDS).optional(),
    actor_id: shortString.optional(),
    agent_id: shortString.optional(),
    surface: z.enum(SURFACES).optional(),
    action: z.enum(ACTIONS).optional(),
    detector: shortString.optional(),
    resource_type: z.enum(AUDIT_RESOURCE_TYPES).optional(),
    resource_id: shortString.optional(),
    since: instant.optional(),
    until: instant.optional(),
  })
  .refine(windowInOrder, { path: ['until'], message: 'must be after since' });

// A validated query is what services/audit.ts declares: this stops compiling when the two drift.
listAuditEventsQuery satisfies z.ZodType<ListAuditEventsInput>;

export type ListAuditEventsQuery = z.infer<typeof listAuditEventsQuery>;
