/**
 * The response schemas of the policies routes (docs/policies.md): the Policy resource and its page,
 * its rule conditions, and the answers of simulate and backtest.
 */
import { z } from 'zod';
import { ACTIONS, SURFACES } from '../../../engine/detector.ts';
import { CONTEXT_FIELDS, type Condition, type ContextField } from '../../../engine/policy.ts';
import { ULID_BODY } from '../../../lib/ids.ts';
import { instant, pageOf, resource } from '../../resources.ts';
import { ScanDecision } from '../scans/responses.ts';

const action = z.enum(ACTIONS);
const surfaces = z.array(z.enum(SURFACES));
const context = z.enum(CONTEXT_FIELDS as readonly ContextField[] as [ContextField, ...ContextField[]]);
const unit = z.number().min(0).max(1);
const policyId = z.string().regex(new RegExp(`^pol_${ULID_BODY}$`));

/** One rule condition: exactly one shape per object (docs/policies.md, the grammar). */
export const PolicyCondition: z.ZodType<Condition> = resource(
  'PolicyCondition',
  z.lazy(() =>
    z.union([
      z.object({ all_of: z.array(PolicyCondition) }),
      z.object({ any_of: z.array(PolicyCondition) }),
      z.object({ not: PolicyCondition }),
      z.object({ detector: z.string(), score_above: unit }),
      z.object({ detector: z.string(), score_below: unit }),
      z.object({ detector: z.string(), label_in: z.array(z.string()), min_confidence: unit.optional() }),
      z.object({ surface_in: surfaces }),
      z.object({ surface_not_in: surfaces }),
      z.object({ context, equals: z.string() }),
      z.object({ context, prefix: z.string() }),
      z.object({ context, in: z.array(z.string()) }),
      z.object({ context, present: z.boolean() }),
      z.object({ content_length_above: z.number().int().min(0) }),
      z.object({ content_length_below: z.number().int().min(0) }),
    ]),
  ),
  'A rule condition (docs/policies.md): a combinator, a detector score or label test, a surface, a ' +
    'context field or a content length test.',
);

const rule = z.object({
  id: z.string().describe('As given, or `rul_…` assigned on create or replace.'),
  name: z.string(),
  when: z.object({ all_of: z.array(PolicyCondition) }).describe('Holds when every condition holds.'),
  then: z.object({
    action,
    notify: z.array(z.string()).describe('Webhook ids (`wh_…`) told when this rule decides a scan.'),
  }),
});

const mcpTool = z.object({ server: z.string(), tool_name: z.string() });

/** The Policy resource. */
export const Policy = resource(
  'Policy',
  z.object({
    id: policyId,
    revision_id: z.string().describe('`rev_…`: changes on every replace; a decision names the revision.'),
    name: z.string(),
    mode: z
      .enum(['enforce', 'observe'])
      .describe('`observe`: decides as `enforce` would, but always answers `allowed`.'),
    enabled: z.boolean(),
    is_default: z.boolean().describe("Whether it decides the organization's scans that name no policy (one at most)."),
    rules: z.array(rule).describe('In order: the first whose `when` holds decides.'),
    default_action: action.describe('The action when nothing else decided.'),
    detector_config: z
      .record(z.string(), z.object({ enabled: z.boolean(), warn_above: unit, flag_above: unit, block_above: unit }))
      .describe('Per detector: whether it runs, and its thresholds (unset ones completed from the built-ins).'),
    allowed_mcp_servers: z.array(z.string()),
    blocked_mcp_servers: z.array(z.string()),
    allowed_mcp_tools: z.array(mcpTool),
    blocked_mcp_tools: z.array(mcpTool),
    created_at: instant,
    updated_at: instant,
  }),
  'A policy: how the scans it applies to are decided (docs/policies.md).',
);

/** A page of policies, newest first. */
export const PolicyPage = pageOf('PolicyPage', Policy);

/** What `POST /v1/policies/{policy_id}:simulate` answers. */
export const PolicySimulation = resource(
  'PolicySimulation',
  z.object({
    decision: ScanDecision,
    matched_rule: z
      .object({ rule_id: z.string(), rule_name: z.string() })
      .nullable()
      .describe('The rule that decided; null when none did.'),
    diff_from_current: z.object({
      previous_action: action.describe(
        'With `scan_id`: the action the scan got; else what the organization gets now for these facts.',
      ),
      previous_revision_id: z
        .string()
        .nullable()
        .describe('The policy revision behind `previous_action`; null when the built-ins decided.'),
      new_action: action.describe('`decision.action`.'),
    }),
  }),
  'What the policy would decide, persisting nothing.',
);

/** What `POST /v1/policies/{policy_id}:backtest` answers. */
export const PolicyBacktest = resource(
  'PolicyBacktest',
  z.object({
    policy_id: policyId,
    revision_id: z.string(),
    window: z.object({ since: instant, until: instant }),
    scans_evaluated: z.number().int().min(0),
    changed: z.number().int().min(0).describe('Scans whose action would change.'),
    truncated_at_scan_id: z
      .string()
      .nullable()
      .describe('Set when `max_scans` stopped the run early: the last scan evaluated.'),
    transitions: z
      .array(
        z.object({
          previous_action: action.describe('The action the scan got.'),
          new_action: action.describe('The action under this policy, as `enforce` applies it.'),
          count: z.number().int().min(1),
          sample_scan_ids: z.array(z.string()).describe('Up to `samples` scan ids, oldest first.'),
        }),
      )
      .describe('Scans counted per (action they got, action under this policy), changed or not.'),
    elapsed_ms: z.number().int().min(0),
  }),
  'The policy evaluated, as `enforce` would apply it, over the stored scans of a window.',
);
