import { z } from 'zod';
import { ACTIONS, SURFACES } from '../../../engine/detector.ts';
import { completeDetectorConfig, CONTEXT_FIELDS, type DetectorCatalog } from '../../../engine/policy.ts';
import { ULID_BODY } from '../../../lib/ids.ts';
import type { BacktestInput } from '../../../services/policies/backtest.ts';
import type { PolicyInput } from '../../../services/policies/manage.ts';
import { pageQuery } from '../../pagination.ts';

/** Bounds of a policy body (the spec's, and ours where it is silent; docs/policies.md). */
export const POLICY_LIMITS = {
  name: 120,
  rules: 64,
  ruleId: 64,
  ruleName: 120,
  /** Condition objects per rule, counting nested ones. */
  conditionsPerRule: 64,
  /** Nesting depth of combinators below `when`. */
  conditionDepth: 6,
  listValues: 100,
  labels: 50,
  notify: 10,
  mcpServers: 200,
  mcpTools: 500,
  string: 255,
} as const;

const ULID = ULID_BODY;

export const policyIdParams = z.object({
  policy_id: z.string().regex(new RegExp(`^pol_${ULID}$`), 'must be pol_ followed by 26 Crockford base32 characters'),
});

export const listPoliciesQuery = pageQuery;

type Path = (string | number)[];
type AddIssue = (path: Path, message: string) => void;

const SHAPES = {
  all_of: ['all_of'],
  any_of: ['any_of'],
  not: ['not'],
  score_above: ['detector', 'score_above'],
  score_below: ['detector', 'score_below'],
  label_in: ['detector', 'label_in', 'min_confidence'],
  surface_in: ['surface_in'],
  surface_not_in: ['surface_not_in'],
  equals: ['context', 'equals'],
  prefix: ['context', 'prefix'],
  in: ['context', 'in'],
  present: ['context', 'present'],
  content_length_above: ['content_length_above'],
  content_length_below: ['content_length_below'],
} as const;
type Shape = keyof typeof SHAPES;
const SHAPE_KEYS = Object.keys(SHAPES) as Shape[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown, max: number = POLICY_LIMITS.string): v is string =>
  typeof v === 'string' && v.length >= 1 && v.length <= max;
const isUnit = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1;

/**
 * Validates one condition (docs/policies.md: the grammar), reporting each problem at its JSON path.
 * @returns the number of condition objects it holds (itself included), for the per-rule bound.
 */
function checkCondition(v: unknown, path: Path, depth: number, detectors: ReadonlySet<string>, add: AddIssue): number {
  if (!isObject(v)) {
    add(path, 'must be a condition object');
    return 1;
  }
  const shapes = SHAPE_KEYS.filter((k) => k in v);
  if (shapes.length !== 1) {
    add(
      path,
      shapes.length === 0
        ? `must have one of ${SHAPE_KEYS.join(', ')}`
        : `must have exactly one of ${shapes.join(', ')}`,
    );
    return 1;
  }
  const shape = shapes[0]!;
  const allowed = new Set<string>(SHAPES[shape]);
  for (const k of Object.keys(v)) if (!allowed.has(k)) add([...path, k], `is not a field of a ${shape} condition`);
  const value = v[shape];
  const at = [...path, shape];
  const nested = (list: unknown[], base: Path) => {
    if (depth >= POLICY_LIMITS.conditionDepth) {
      add(base, `nests deeper than ${POLICY_LIMITS.conditionDepth} levels`);
      return 0;
    }
    let n = 0;
    list.forEach((c, i) => (n += checkCondition(c, [...base, i], depth + 1, detectors, add)));
    return n;
  };
  const checkDetector = () => {
    const d = v.detector;
    if (typeof d !== 'string') add([...path, 'detector'], 'is required: a detector name');
    else if (!detectors.has(d))
      add([...path, 'detector'], `is not a detector: use one of ${[...detectors].join(', ')}`);
  };
  const checkList = (max: number, each: (x: unknown) => boolean, what: string) => {
    if (!Array.isArray(value) || value.length < 1 || value.length > max)
      add(at, `must be an array of 1 to ${max} ${what}`);
    else value.forEach((x, i) => each(x) || add([...at, i], `must be ${what.replace(/s$/, '')}`));
  };
  switch (shape) {
    case 'all_of':
    case 'any_of':
      if (!Array.isArray(value) || value.length < 1) {
        add(at, 'must be a non-empty array of conditions');
        return 1;
      }
      return 1 + nested(value, at);
    case 'not':
      if (depth >= POLICY_LIMITS.conditionDepth) {
        add(at, `nests deeper than ${POLICY_LIMITS.conditionDepth} levels`);
        return 1;
      }
      return 1 + checkCondition(value, at, depth + 1, detectors, add);
    case 'score_above':
    case 'score_below':
      checkDetector();
      if (!isUnit(value)) add(at, 'must be a number from 0 to 1');
      return 1;
    case 'label_in':
      checkDetector();
      checkList(POLICY_LIMITS.labels, (x) => isStr(x, 64), 'labels of 1 to 64 characters');
      if ('min_confidence' in v && !isUnit(v.min_confidence))
        add([...path, 'min_confidence'], 'must be a number from 0 to 1');
      return 1;
    case 'surface_in':
    case 'surface_not_in':
      checkList(
        SURFACES.length,
        (x) => (SURFACES as readonly unknown[]).includes(x),
        `surfaces (${SURFACES.join(', ')})`,
      );
      return 1;
    case 'equals':
    case 'prefix':
    case 'in':
    case 'present':
      if (!(CONTEXT_FIELDS as readonly unknown[]).includes(v.context))
        add([...path, 'context'], `must be one of ${CONTEXT_FIELDS.join(', ')}`);
      if (shape === 'present') {
        if (typeof value !== 'boolean') add(at, 'must be a boolean');
      } else if (shape === 'in') checkList(POLICY_LIMITS.listValues, (x) => isStr(x), 'strings of 1 to 255 characters');
      else if (!isStr(value)) add(at, 'must be a string of 1 to 255 characters');
      return 1;
    case 'content_length_above':
    case 'content_length_below':
      if (!Number.isSafeInteger(value) || (value as number) < 0) add(at, 'must be a non-negative integer (characters)');
      return 1;
  }
}

const ruleId = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1 to 64 letters, digits, or _ . : -');
const notifyTarget = z
  .string()
  .regex(new RegExp(`^wh_${ULID}$`), 'must be a webhook id (wh_ followed by 26 Crockford base32 characters)');

function ruleSchema(detectors: ReadonlySet<string>) {
  return z.strictObject({
    id: ruleId.optional(),
    name: z.string().min(1, 'must be 1 to 120 characters').max(POLICY_LIMITS.ruleName, 'must be 1 to 120 characters'),
    when: z.unknown().superRefine((when, ctx) => {
      const add: AddIssue = (path, message) => ctx.addIssue({ code: 'custom', path, message });
      if (!isObject(when) || !Array.isArray(when.all_of)) return add([], 'must be {"all_of": [condition, ...]}');
      for (const k of Object.keys(when)) if (k !== 'all_of') add([k], 'is not allowed: "when" holds only "all_of"');
      if (when.all_of.length < 1) return add(['all_of'], 'must list at least one condition');
      let n = 0;
      when.all_of.forEach((c, i) => (n += checkCondition(c, ['all_of', i], 1, detectors, add)));
      if (n > POLICY_LIMITS.conditionsPerRule)
        add(['all_of'], `holds ${n} conditions; at most ${POLICY_LIMITS.conditionsPerRule} per rule`);
    }),
    then: z.strictObject({
      action: z.enum(ACTIONS),
      notify: z
        .array(notifyTarget)
        .max(POLICY_LIMITS.notify, `must list at most ${POLICY_LIMITS.notify} webhooks`)
        .refine((l) => new Set(l).size === l.length, 'must not repeat a webhook')
        .default([]),
    }),
  });
}

const unit = z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1');
const detectorConfigEntry = z.strictObject({
  enabled: z.boolean().default(true),
  warn_above: unit.optional(),
  flag_above: unit.optional(),
  block_above: unit.optional(),
});

const server = z.string().min(1, 'must be 1 to 255 characters').max(255, 'must be 1 to 255 characters');
const serverList = z
  .array(server)
  .max(POLICY_LIMITS.mcpServers, `must list at most ${POLICY_LIMITS.mcpServers} servers`)
  .default([]);
const toolList = z
  .array(z.strictObject({ server, tool_name: server }))
  .max(POLICY_LIMITS.mcpTools, `must list at most ${POLICY_LIMITS.mcpTools} tools`)
  .default([]);

/**
 * The body of create (`replace: false`) and replace (`replace: true`). `detector_config` entries are
 * completed from the built-in thresholds, then checked: 0 ≤ warn_above ≤ flag_above ≤ block_above ≤ 1.
 */
export function policyBody(catalog: DetectorCatalog) {
  const detectors = new Set(catalog.names);
  // A validated body is what services/policies/manage.ts declares: `satisfies` stops compiling when the two drift.
  return z
    .strictObject({
      name: z
        .string()
        .min(1, 'must be 1 to 120 characters')
        .max(POLICY_LIMITS.name, 'must be 1 to 120 characters')
        .refine((s) => s.trim().length > 0, 'must not be blank'),
      mode: z.enum(['enforce', 'observe']).default('enforce'),
      enabled: z.boolean().default(true),
      is_default: z.boolean().optional(),
      rules: z.array(ruleSchema(detectors)).max(POLICY_LIMITS.rules, `must hold at most ${POLICY_LIMITS.rules} rules`),
      default_action: z.enum(ACTIONS),
      detector_config: z.record(z.string(), detectorConfigEntry).default({}),
      allowed_mcp_servers: serverList,
      blocked_mcp_servers: serverList,
      allowed_mcp_tools: toolList,
      blocked_mcp_tools: toolList,
    })
    .superRefine((b, ctx) => {
      const seen = new Map<string, number>();
      b.rules.forEach((r, i) => {
        if (r.id === undefined) return;
        if (seen.has(r.id))
          ctx.addIssue({
            code: 'custom',
            path: ['rules', i, 'id'],
            message: `repeats the id of rules[${seen.get(r.id)}]`,
          });
        else seen.set(r.id, i);
      });
      for (const [name, c] of Object.entries(b.detector_config)) {
        if (!detectors.has(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['detector_config', name],
            message: `is not a detector: use one of ${[...detectors].join(', ')}`,
          });
          continue;
        }
        const t = completeDetectorConfig(catalog.thresholdsOf(name), c);
        if (!(t.warn_above <= t.flag_above && t.flag_above <= t.block_above)) {
          ctx.addIssue({
            code: 'custom',
            path: ['detector_config', name],
            message: `must satisfy 0 <= warn_above <= flag_above <= block_above <= 1 (with unset values taken from the built-in ${JSON.stringify(catalog.thresholdsOf(name))}); got warn ${t.warn_above}, flag ${t.flag_above}, block ${t.block_above}`,
          });
        }
      }
    }) satisfies z.ZodType<PolicyInput>;
}

export type PolicyBody = z.infer<ReturnType<typeof policyBody>>;

const unitScore = z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1');
const short = z.string().min(1, 'must be 1 to 255 characters').max(255, 'must be 1 to 255 characters');

/**
 * Simulate: `{scan_id}` re-evaluates a stored scan; `{surface, findings}` evaluates given findings;
 * both together re-evaluate the scan with the given parts replaced (docs/policies.md). Findings have
 * the shape a scan returns (so a scan's findings can be pasted); `score` defaults to the items' highest
 * confidence.
 */
export function simulateBody(catalog: DetectorCatalog) {
  const detectors = new Set(catalog.names);
  const item = z.strictObject({
    label: z.string().min(1).max(64),
    confidence: unitScore,
    text: z.string().max(10_000).optional(),
    source: z.string().max(255).optional(),
    span: z.tuple([z.number().int().min(0), z.number().int().min(0)]).optional(),
  });
  const finding = z.strictObject({
    detector: z.string().refine((d) => detectors.has(d), `must be a detector: ${[...detectors].join(', ')}`),
    score: unitScore.optional(),
    items: z.array(item).max(1000, 'must list at most 1000 items').default([]),
    frameworks: z.record(z.string(), z.array(z.string().max(64)).max(64)).optional(),
  });
  return z
    .strictObject({
      scan_id: z
        .string()
        .regex(new RegExp(`^(scan_)?${ULID}$`), 'must be scan_ (optional) followed by 26 Crockford base32 characters')
        .optional(),
      surface: z.enum(SURFACES).optional(),
      findings: z
        .array(finding)
        .max(64, 'must list at most 64 findings')
        .refine((f) => new Set(f.map((x) => x.detector)).size === f.length, 'must not repeat a detector')
        .optional(),
      context: z
        .strictObject({ agent_id: short.optional(), session_id: short.optional(), mcp_server: short.optional() })
        .optional(),
      content_length: z.number().int().min(0).max(100_000_000).optional(),
    })
    .superRefine((b, ctx) => {
      if (b.scan_id !== undefined) return;
      if (b.surface === undefined)
        ctx.addIssue({ code: 'custom', path: ['surface'], message: 'is required when scan_id is absent' });
      if (b.findings === undefined)
        ctx.addIssue({ code: 'custom', path: ['findings'], message: 'is required when scan_id is absent' });
    });
}

const instant = z.iso
  .datetime({ offset: true, message: 'must be an RFC 3339 date-time' })
  .transform((s) => new Date(s));

export const backtestBody = z
  .strictObject({
    since: instant,
    until: instant,
    samples: z.number().int().min(0).max(20).default(5),
    max_scans: z.number().int().min(1).max(10_000_000).default(1_000_000),
  })
  .refine((b) => b.since < b.until, { path: ['until'], message: 'must be after since' });

// A validated body is what services/policies/backtest.ts declares: this stops compiling when the two drift.
backtestBody satisfies z.ZodType<BacktestInput>;
