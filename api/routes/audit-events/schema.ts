import { z } from 'zod';
import { ACTIONS, SURFACES } from '../../../engine/detector.ts';
import { AUDIT_KINDS, AUDIT_RESOURCE_TYPES, type ListAuditEventsInput } from '../../../services/audit.ts';
import { instant, shortString, windowInOrder } from '../../fields.ts';
import { pageQueryUpTo } from '../../pagination.ts';
import { instant as sentInstant, pageOf, resource } from '../../resources.ts';

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

/**
 * The Audit event resource: every field always present, null or [] when the kind does not use it
 * (detection: a scan's decision; management: a change to a resource).
 */
export const AuditEvent = resource(
  'AuditEvent',
  z.object({
    id: z.string(),
    kind: z.enum(AUDIT_KINDS),
    created: sentInstant,
    actor_id: z.string().nullable().describe('The API key (detection) or the principal (management) that acted.'),
    request_id: z.string().nullable(),
    scan_id: z.string().nullable().describe('Detection: the scan.'),
    agent_id: z.string().nullable().describe("Detection: the scan's `context.agent_id`."),
    session_id: z.string().nullable().describe("Detection: the scan's `context.session_id`."),
    surface: z.enum(SURFACES).nullable().describe("Detection: the scan's surface."),
    detector: z.string().nullable().describe("Detection: the detector of the decision's triggering finding."),
    score: z.number().nullable().describe("Detection: that detector's score."),
    action: z
      .enum(ACTIONS)
      .nullable()
      .describe('Detection: the effective action (what the policy would have done, under observe mode).'),
    owasp_tags: z.array(z.string()).describe("Detection: OWASP tags of the triggering detector's findings."),
    mitre_tags: z.array(z.string()).describe("Detection: MITRE ATLAS tags of the triggering detector's findings."),
    resource_type: z.enum(AUDIT_RESOURCE_TYPES).nullable().describe('Management: the kind of resource changed.'),
    resource_id: z.string().nullable().describe('Management: the resource changed.'),
    change_summary: z.string().nullable().describe('Management: what changed, in words (never a secret).'),
    enforced: z
      .boolean()
      .nullable()
      .describe('Detection: false when the policy only observed (`action` is the would-be action); else null.'),
  }),
  'One audit log entry: a detection (a scan decided) or a management change.',
);

/** A page of the audit log (JSON); the same page is also available as CSV. */
export const AuditEventPage = pageOf('AuditEventPage', AuditEvent);
