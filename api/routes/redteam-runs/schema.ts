import { z } from 'zod';
import type { AddFindingsInput } from '../../../services/redteam/findings.ts';
import type { CreateRunInput, FinalizeRunInput } from '../../../services/redteam/runs.ts';
import { instant } from '../../fields.ts';
import { pageQuery } from '../../pagination.ts';
import { instant as isoInstant, nullableInstant, pageOf, resource } from '../../resources.ts';

/** The bounds of docs/api.md (Red-team runs): the spec gives only verdict_reason's and the findings count. */
export const REDTEAM_LIMITS = {
  scopeRedactedBytes: 16_384,
  scopeRedactedKeys: 64,
  scopeRedactedDepth: 16,
  mapEntries: 64,
  mapKey: 128,
  mapValue: 255,
  redteamVersion: 64,
  operatorId: 255,
  verdictReason: 4096,
  findingsPerCall: 100,
  attackClass: 128,
  title: 255,
  description: 8192,
  frameworkRefs: 32,
  frameworkName: 64,
  frameworkId: 128,
  remediationClass: 128,
} as const;

const L = REDTEAM_LIMITS;
const SEVERITY = z.enum(['critical', 'high', 'medium', 'low', 'info']);

const bounded = (min: number, max: number) =>
  z.string().min(min, `must be ${min} to ${max} characters`).max(max, `must be ${min} to ${max} characters`);

/** A map of string to string (model versions, corpus hashes): at most 64 entries, keys 1–128, values 1–255. */
const stringMap = z
  .record(bounded(1, L.mapKey), bounded(1, L.mapValue))
  .refine((m) => Object.keys(m).length <= L.mapEntries, `must have at most ${L.mapEntries} entries`);

const utf8Bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** Whether `v` nests objects and arrays at most `max` levels deep (iterative: a hostile body may nest thousands). */
function nestsWithin(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d > max) return false;
    for (const child of Object.values(x)) stack.push([child, d + 1]);
  }
  return true;
}

/** The client-redacted scope: a JSON object of at most 64 keys, 16 levels and 16 KiB serialized. */
const scopeRedacted = z
  .record(z.string(), z.unknown())
  .refine((o) => nestsWithin(o, L.scopeRedactedDepth), {
    message: `must nest at most ${L.scopeRedactedDepth} levels`,
    abort: true,
  })
  .refine((o) => Object.keys(o).length <= L.scopeRedactedKeys, `must have at most ${L.scopeRedactedKeys} keys`)
  .refine((o) => utf8Bytes(o) <= L.scopeRedactedBytes, `must be at most ${L.scopeRedactedBytes} bytes as JSON`);

export const createRunBody = z.strictObject({
  scope_hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'),
  scope_redacted: scopeRedacted.nullable().optional(),
  upload_enabled: z.boolean(),
  training_consent: z.boolean(),
  written_authorization: z.boolean(),
  attached_authenticated: z.boolean(),
  started_at: instant,
  model_versions: stringMap,
  corpus_hashes: stringMap,
  redteam_version: bounded(1, L.redteamVersion),
  operator_id: bounded(1, L.operatorId).nullable().optional(),
}) satisfies z.ZodType<CreateRunInput>;

export const finalizeRunBody = z.strictObject({
  finished_at: instant,
  verdict: SEVERITY,
  verdict_reason: z
    .string()
    .max(L.verdictReason, `must be at most ${L.verdictReason} characters`)
    .nullable()
    .default(null),
}) satisfies z.ZodType<FinalizeRunInput>;

const finding = z.strictObject({
  attack_class: bounded(1, L.attackClass),
  severity: SEVERITY,
  title: bounded(1, L.title),
  description: z.string().max(L.description, `must be at most ${L.description} characters`),
  framework_refs: z
    .array(z.strictObject({ framework: bounded(1, L.frameworkName), id: bounded(1, L.frameworkId) }))
    .max(L.frameworkRefs, `must have at most ${L.frameworkRefs} items`)
    .default([]),
  representative_event_id: z
    .string()
    .regex(/^lev_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be lev_ followed by 26 Crockford base32 characters')
    .nullable()
    .default(null),
  remediation_class: bounded(1, L.remediationClass),
});

export const addFindingsBody = z.strictObject({
  findings: z
    .array(finding)
    .min(1, `must have 1 to ${L.findingsPerCall} items`)
    .max(L.findingsPerCall, `must have 1 to ${L.findingsPerCall} items`),
}) satisfies z.ZodType<AddFindingsInput>;

export const runIdParams = z.object({
  run_id: z.string().regex(/^rtr_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be rtr_ followed by 26 Crockford base32 characters'),
});

export const listRunsQuery = pageQuery.extend({ state: z.enum(['running', 'finished']).optional() });

export const listFindingsQuery = pageQuery;

// Responses.

const RUN_ID_TEXT = '`rtr_` + 26 Crockford base32 characters.';
const stringMapOut = z.record(z.string(), z.string());
const frameworkRefOut = z.object({ framework: z.string(), id: z.string() });

/** The red-team run resource: the spec's fields (docs/api.md, Red-team runs). */
export const RedteamRun = resource(
  'RedteamRun',
  z.object({
    run_id: z.string().describe(RUN_ID_TEXT),
    state: z.enum(['running', 'finished']),
    scope_hash: z.string().describe('The declared scope: 64 lowercase hex characters.'),
    scope_redacted: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('The scope as the client redacted it, stored as given; null when not sent.'),
    upload_enabled: z.boolean(),
    training_consent: z.boolean(),
    written_authorization: z.boolean(),
    attached_authenticated: z.boolean(),
    started_at: isoInstant,
    finished_at: nullableInstant.describe('Null while the run is running.'),
    verdict: SEVERITY.nullable().describe('The worst severity found; null while the run is running.'),
    verdict_reason: z.string().nullable(),
    model_versions: stringMapOut.describe('Model name → version the run tested.'),
    corpus_hashes: stringMapOut.describe('Corpus name → hash of the probes sent.'),
    redteam_version: z.string(),
    operator_id: z.string().nullable(),
    created_at: isoInstant,
  }),
  'A red-team run: created running, finalized once with a verdict.',
);

/** A page of runs, newest first. */
export const RedteamRunPage = pageOf('RedteamRunPage', RedteamRun);

/** A red-team finding as the findings list answers it. */
export const RedteamFinding = resource(
  'RedteamFinding',
  z.object({
    finding_id: z.string().describe('`rtf_` + 26 Crockford base32 characters.'),
    run_id: z.string().describe(RUN_ID_TEXT),
    attack_class: z.string(),
    severity: SEVERITY,
    title: z.string(),
    description: z.string(),
    framework_refs: z.array(frameworkRefOut),
    representative_event_id: z.string().nullable().describe('A labeled event (`lev_…`) showing the finding, or null.'),
    remediation_class: z.string(),
    created_at: isoInstant,
  }),
  'One finding of a red-team run.',
);

/** A page of a run's findings, newest first. */
export const RedteamFindingPage = pageOf('RedteamFindingPage', RedteamFinding);

/** What adding findings answers: how many were stored and their ids, in request order. */
export const RedteamFindingsAdded = resource(
  'RedteamFindingsAdded',
  z.object({
    accepted: z.number().int().min(1),
    finding_ids: z.array(z.string()).describe('The new findings’ ids (`rtf_…`), in request order.'),
  }),
  'The findings an add-findings call stored.',
);
