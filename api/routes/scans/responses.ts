/**
 * The response schemas of the scans routes: the Scan resource (what `POST /v1/scans` and
 * `GET /v1/scans/{scan_id}` answer, and a stream's `decision` event), its page, its parts that other
 * resources embed (the decision, a finding), and the `detector` event of a streamed scan.
 */
import { z } from 'zod';
import { ACTIONS, SURFACES } from '../../../engine/detector.ts';
import { IMAGE_MEDIA_TYPES } from '../../../engine/content.ts';
import { ULID_BODY } from '../../../lib/ids.ts';
import { instant, pageOf, resource } from '../../resources.ts';

const nullableString = z.string().nullable();

/** Why a decision was taken (docs/api.md#scans without a policy, docs/policies.md under one). */
const REASONS = [
  'below_thresholds',
  'score_threshold',
  'mcp_server_blocked',
  'mcp_server_not_allowed',
  'mcp_tool_blocked',
  'mcp_tool_not_allowed',
  'rule_matched',
  'default_action',
  'observe_mode',
] as const;

const reason = z.enum(REASONS);

/** The decision of a scan (also what a policy simulation answers). */
export const ScanDecision = resource(
  'ScanDecision',
  z.object({
    action: z
      .enum(ACTIONS)
      .describe('What the caller should do with the content. Always `allowed` in observe mode (`observe_mode`).'),
    reason: reason.describe(
      '`below_thresholds` / `score_threshold` without a policy; under one, the step of its evaluation ' +
        'that decided (`mcp_*`, `rule_matched`, `score_threshold`, `default_action`), or `observe_mode`.',
    ),
    policy_id: nullableString.describe('The policy that decided; null when the built-in thresholds did.'),
    policy_revision_id: nullableString.describe('The revision of that policy; null when the built-ins decided.'),
    matched_rule_id: nullableString.describe('The rule whose `when` held (`rule_matched`); else null.'),
    triggering_finding: nullableString.describe(
      'What decided: `<detector>:<label>` of the deciding item (or `<detector>` for a score without ' +
        'items), `mcp:<server>` or `mcp:<server>/<tool>` for the MCP lists; null when nothing did.',
    ),
    observed_action: z.enum(ACTIONS).optional().describe('Observe mode only: the action `enforce` would have taken.'),
    observed_reason: reason.optional().describe('Observe mode only: the reason `enforce` would have given.'),
  }),
  'How a scan was decided: its action and why (docs/policies.md, evaluation order).',
);

const frameworks = z
  .object({
    owasp_agentic: z.array(z.string()),
    owasp_llm: z.array(z.string()),
    mitre_atlas: z.array(z.string()),
  })
  .describe('The framework entries (OWASP Agentic, OWASP LLM Top 10, MITRE ATLAS) the detector maps to.');

/** One thing a detector found. */
export const ScanFindingItem = resource(
  'ScanFindingItem',
  z.object({
    text: z.string().describe('The matched text, taken from the scanned text at `span`.'),
    label: z.string().describe('What was found (e.g. `CREDIT_CARD`, `INJECTION`).'),
    confidence: z.number().min(0).max(1),
    source: z
      .string()
      .describe(
        'What found it: `regex`, `ner`, `rule`, or `model:<id>@<version>`; a fallback adds ' +
          '`;fallback_from=accurate;reason=<why>`, an item from a decoded segment `;view=base64` or `;view=hex`.',
      ),
    span: z
      .tuple([z.number().int().min(0), z.number().int().min(0)])
      .describe('[start, end) UTF-16 offsets into the scanned text (a toolset: its rendering).'),
  }),
);

/** One detector's finding, as a scan stores and returns it. */
export const ScanFinding = resource(
  'ScanFinding',
  z.object({
    detector: z.string().describe('The detector (`GET /v1/detectors`).'),
    items: z.array(ScanFindingItem),
    frameworks,
  }),
);

/** The `data` of a streamed scan's `event: detector`: one detector's result, as it completes. */
export const ScanEventDetector = resource(
  'ScanEventDetector',
  z.object({
    detector: z.string(),
    score: z.number().min(0).max(1).describe("The detector's score for the whole content; thresholds apply to it."),
    items: z.array(ScanFindingItem).describe('Possibly empty: every detector that ran is reported.'),
    frameworks,
    elapsed_ms: z.number().min(0).describe('Milliseconds since the scan started.'),
    note: z
      .string()
      .optional()
      .describe('Present when the detector did not run as asked (e.g. a fallback to the fast model).'),
  }),
  'The `data` of `event: detector` in a streamed scan (`POST /v1/scans`, `Accept: text/event-stream`).',
);

const tool = z.object({
  server: z.string(),
  name: z.string(),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
});

/** The scanned content as submitted (after U+0000 and lone surrogates became U+FFFD). */
const content = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({
      type: z.literal('image_base64'),
      data: z.string(),
      media_type: z.enum(IMAGE_MEDIA_TYPES).optional(),
    }),
    z.object({ type: z.literal('toolset'), tools: z.array(tool) }),
  ])
  .describe(
    'The content as submitted; present only when `options.capture` was true and the retention window ' +
      'has not passed.',
  );

/** The Scan resource. */
export const Scan = resource(
  'Scan',
  z.object({
    id: z.string().regex(new RegExp(`^scan_${ULID_BODY}$`)),
    created: instant,
    kind: z.enum(['content', 'toolset']),
    surface: z.enum(SURFACES),
    context: z
      .object({
        agent_id: nullableString,
        session_id: nullableString,
        mcp_server: nullableString,
        trace_id: nullableString,
        end_user_id: nullableString.describe(
          'The submitted `end_user_id`; null where the deployment keeps only its hash (`SCAN_END_USER_ID=drop`).',
        ),
        end_user_id_hash: nullableString.describe('Lowercase hex SHA-256 of the submitted `end_user_id`.'),
      })
      .describe('The submitted context plus `end_user_id_hash`; every key present, null when not submitted.'),
    findings: z
      .array(ScanFinding)
      .describe('The detectors that found something (a detector with no items is left out).'),
    decision: ScanDecision,
    content_stored: z
      .boolean()
      .describe('Whether the content was captured (`options.capture`); stays true after it expires.'),
    content: content.optional(),
  }),
  'A scan: the content checked, what each detector found, and the decision.',
);

/** A page of scans, newest first. */
export const ScanPage = pageOf('ScanPage', Scan);

/** `POST /v1/scans` with `Accept: text/event-stream`: the 200 answer's description. */
export const SCAN_STREAM_DESCRIPTION =
  'The scan as server-sent events: `detector` events then one ' +
  'terminal `decision` or `error`; the stream then closes. Validation and the policy lookup answer ' +
  'before the stream, as problems.';

/** The events of a streamed scan and the schema of each one's `data`. */
export const SCAN_STREAM_EVENTS = {
  detector: { data: ScanEventDetector, description: 'One per detector that ran, in completion order.' },
  decision: {
    data: Scan,
    description: 'Terminal: the stored scan, as GET /v1/scans/{scan_id} returns it; sent once it is committed.',
  },
  error: {
    data: 'Problem',
    description:
      'Terminal instead of `decision` (e.g. `service.overloaded`, `scans.deadline_exceeded`); nothing was stored.',
  },
} as const;
