import { z } from 'zod';
import type { LabeledEventInput, ListLabeledEventsInput } from '../../../services/labeled-events.ts';
import { cursorInstant, instant } from '../../fields.ts';
import { pageQuery } from '../../pagination.ts';
import { instant as isoInstant, pageOf, resource } from '../../resources.ts';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const EVENT_ID = new RegExp(`^lev_${ULID}$`);
const RUN_ID = new RegExp(`^rtr_${ULID}$`);

/** Bounds of an append (docs/api.md, Labeled events). */
export const LIMITS = {
  events: 100,
  text: 100_000,
  verdictReason: 4096,
  frameworkRefs: 32,
  evidenceKeys: 16,
  findings: 100,
  findingItems: 100,
  findingText: 4096,
  frameworkTags: 32,
  tokensUsed: 32,
} as const;

export const SOURCES = ['redteam', 'production_sample', 'feedback', 'reviewed'] as const;
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
/** The verdicts an event may carry: the four decision actions. */
export const VERDICTS = ['blocked', 'flagged', 'warned', 'allowed'] as const;

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const name = (max: number) =>
  z.string().min(1, `must be 1 to ${max} characters`).max(max, `must be 1 to ${max} characters`);

const tags = z.array(name(255)).max(LIMITS.frameworkTags);

/** A Finding as a scan reports it: loosely checked, but every part bounded. */
const finding = z.strictObject({
  detector: name(64),
  items: z
    .array(
      z.strictObject({
        text: text(LIMITS.findingText),
        label: name(64),
        confidence: z.number().min(0).max(1),
        source: name(128).optional(),
        span: z.tuple([z.number().int().min(0), z.number().int().min(0)]).optional(),
      }),
    )
    .max(LIMITS.findingItems),
  frameworks: z
    .strictObject({ owasp_agentic: tags.optional(), owasp_llm: tags.optional(), mitre_atlas: tags.optional() })
    .optional(),
});

const comparator = z.strictObject({
  input_findings: z.array(finding).max(LIMITS.findings).default([]),
  response_findings: z.array(finding).max(LIMITS.findings).default([]),
  would_have_blocked: z.boolean(),
});

const sourceDataFields = {
  iteration_index: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  attack_class: name(255),
  attack_subclass: name(255),
  corpus_entry_id: name(255),
  tokens_used: z
    .record(name(64), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
    .refine((m) => Object.keys(m).length <= LIMITS.tokensUsed, `must have at most ${LIMITS.tokensUsed} entries`),
};

/** A red-team probe: every field, the run included. */
const redteamSourceData = z.strictObject({
  run_id: z.string().regex(RUN_ID, 'must be rtr_ followed by 26 Crockford base32 characters'),
  ...sourceDataFields,
});

/** The other sources: the same descriptive fields, all optional, and no run. */
const otherSourceData = z.strictObject({
  iteration_index: sourceDataFields.iteration_index.optional(),
  attack_class: sourceDataFields.attack_class.optional(),
  attack_subclass: sourceDataFields.attack_subclass.optional(),
  corpus_entry_id: sourceDataFields.corpus_entry_id.optional(),
  tokens_used: sourceDataFields.tokens_used.optional(),
});

const common = {
  observed_at: instant,
  input: text(LIMITS.text).nullable().optional(),
  output: text(LIMITS.text).nullable().optional(),
  verdict: z.enum(VERDICTS).nullable().optional(),
  verdict_confidence: z.number().min(0).max(1).nullable().optional(),
  verdict_reason: text(LIMITS.verdictReason).nullable().optional(),
  severity: z.enum(SEVERITIES).nullable().optional(),
  framework_refs: z
    .array(z.strictObject({ framework: name(64), id: name(128) }))
    .max(LIMITS.frameworkRefs)
    .default([]),
  comparator: comparator.nullable().optional(),
  training_consent: z.boolean().default(false),
  evidence_blob_keys: z
    .array(z.strictObject({ kind: name(64), storage_key: name(255) }))
    .max(LIMITS.evidenceKeys)
    .default([]),
};

const event = z.discriminatedUnion('source', [
  z.strictObject({ source: z.literal('redteam'), source_data: redteamSourceData, ...common }),
  z.strictObject({
    source: z.enum(['production_sample', 'feedback', 'reviewed']),
    source_data: otherSourceData.nullable().optional(),
    ...common,
  }),
]);

export const appendBody = z.strictObject({
  events: z
    .array(event)
    .min(1, `must hold 1 to ${LIMITS.events} events`)
    .max(LIMITS.events, `must hold 1 to ${LIMITS.events} events`),
});

appendBody.shape.events.element satisfies z.ZodType<LabeledEventInput>;

export const eventIdParams = z.object({
  event_id: z.string().regex(EVENT_ID, 'must be lev_ followed by 26 Crockford base32 characters'),
});

export const listQuery = pageQuery
  .extend({
    source: z.enum(SOURCES).optional(),
    severity: z.enum(SEVERITIES).optional(),
    training_consent: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional(),
    observed_after: instant.optional(),
    observed_before: instant.optional(),
    run_id: z.string().regex(RUN_ID, 'must be rtr_ followed by 26 Crockford base32 characters').optional(),
  })
  .strict()
  .refine((q) => !(q.observed_after && q.observed_before && q.observed_after >= q.observed_before), {
    path: ['observed_before'],
    message: 'must be later than observed_after',
  }) satisfies z.ZodType<ListLabeledEventsInput>;

/** What a list cursor carries: the last row's position (observed_at as RFC 3339, id). */
export const cursorPayload = z.strictObject({
  observed_at: cursorInstant,
  id: z.string().regex(EVENT_ID),
});

// Responses.

/** A Finding of a stored comparator: as appended, with every string redacted (so unbounded). */
const storedFinding = z.object({
  detector: z.string(),
  items: z.array(
    z.object({
      text: z.string(),
      label: z.string(),
      confidence: z.number().min(0).max(1),
      source: z.string().optional(),
      span: z.tuple([z.number().int().min(0), z.number().int().min(0)]).optional(),
    }),
  ),
  frameworks: z
    .object({
      owasp_agentic: z.array(z.string()).optional(),
      owasp_llm: z.array(z.string()).optional(),
      mitre_atlas: z.array(z.string()).optional(),
    })
    .optional(),
});

/** The fields of a labeled event but `source_data`, in the spec's order. */
const eventFields = {
  event_id: z.string().describe('`lev_` + 26 Crockford base32 characters.'),
  source: z.enum(SOURCES),
  observed_at: isoInstant,
  input_redacted: z.string().nullable().describe('`input` under the redaction policy in force at append.'),
  output_redacted: z.string().nullable().describe('`output` under the redaction policy in force at append.'),
  verdict: z.enum(VERDICTS).nullable(),
  verdict_confidence: z.number().min(0).max(1).nullable(),
  verdict_reason: z.string().nullable(),
  severity: z.enum(SEVERITIES).nullable(),
  framework_refs: z.array(z.object({ framework: z.string(), id: z.string() })),
  comparator: z
    .object({
      input_findings: z.array(storedFinding),
      response_findings: z.array(storedFinding),
      would_have_blocked: z.boolean(),
    })
    .nullable()
    .describe('As appended, every string in it redacted.'),
};

const trailingFields = {
  training_consent: z.boolean().describe('A `redteam` event carries its run’s consent.'),
  redaction_version: z.string(),
  redaction_policy_id: z
    .string()
    .nullable()
    .describe('The policy that redacted the event; null while the organization never set one.'),
  evidence_blob_keys: z.array(z.object({ kind: z.string(), storage_key: z.string() })),
  created_at: isoInstant,
};

/** A labeled event as the list answers it: every field but `source_data`. */
export const LabeledEventSummary = resource(
  'LabeledEventSummary',
  z.object({ ...eventFields, ...trailingFields }),
  'A labeled event as the list answers it: every field but `source_data`.',
);

/** A labeled event, `source_data` included (null when none), as get answers it. */
export const LabeledEvent = resource(
  'LabeledEvent',
  z.object({
    ...eventFields,
    source_data: z
      .union([redteamSourceData, otherSourceData])
      .nullable()
      .describe('As appended; a `redteam` event’s carries its `run_id`.'),
    ...trailingFields,
  }),
  'A labeled event: an observed input/output pair with its verdict, texts redacted.',
);

/** A page of labeled events, by `observed_at` then `event_id`, descending. */
export const LabeledEventPage = pageOf('LabeledEventPage', LabeledEventSummary);

/** What an append answers: how many events were stored and their ids, in request order. */
export const LabeledEventsAppended = resource(
  'LabeledEventsAppended',
  z.object({
    accepted: z.number().int().min(1),
    event_ids: z.array(z.string()).describe('The new events’ ids (`lev_…`), in request order.'),
  }),
  'The events an append stored.',
);
