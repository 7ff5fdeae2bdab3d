/**
 * The redactor: what labeled events store instead of raw text (docs/api.md, "Redaction policy").
 * Each text runs through the scan engine's own PII detector (regex recognizers + the pii-ner model
 * through the worker pool: the same detector a scan runs, and nothing else), and every span it
 * reports is obfuscated as the organization's policy in force says (obfuscate.ts). When the NER model
 * cannot answer, the detector keeps its regex items (a note, no error): names may then be left,
 * structured identifiers never. An overloaded pool is 503 and a passed deadline 504: nothing is returned
 * to store.
 *
 * Strings a caller needs back verbatim (names that group and join rows) are not rewritten:
 * `identifierIssues` names those holding a structured identifier the policy would hide, so the caller
 * can refuse them instead.
 */
import type { ScanEngine } from '../../engine/pipeline.ts';
import type { FindingItem } from '../../engine/detector.ts';
import { findPiiRegex } from '../../engine/detectors/pii-regex.ts';
import { ModelDeadlineError, ModelOverloadedError } from '../../engine/model-client.ts';
import { normalize } from '../../engine/normalize.ts';
import { Errors, type ValidationIssue } from '../../lib/errors.ts';
import {
  fieldRuleOf,
  obfuscateText,
  obfuscateWhole,
  obfuscationOf,
  organizationHashKey,
  type ObfuscationRules,
  type RedactionField,
} from './obfuscate.ts';
import { getRedactionPolicy, type RedactionPolicyDeps } from './policy.ts';

export interface RedactableFields {
  input?: string | null;
  output?: string | null;
  comparator?: unknown;
}

export interface RedactedFields {
  input_redacted: string | null;
  output_redacted: string | null;
  comparator: unknown | null;
}

/** Which policy version redacted a request's texts. */
export interface RedactionProvenance {
  redaction_version: string;
  redaction_policy_id: string | null;
}

export interface RedactionOutcome<R = RedactedFields> extends RedactionProvenance {
  events: R[];
}

/** A string a caller needs back verbatim: its path in the request body, and the string. */
export type Identifier = readonly [path: string, value: string];

/** What one batch's texts are redacted with: the policy in force when the batch began, each distinct text detected once. */
export interface Redact {
  /**
   * The text with every span the policy does not pass through replaced by its tag; when `field` (the
   * field the text is stored in) has a rule of its own, the whole text as that rule says instead.
   */
  text(text: string, field?: RedactionField): Promise<string>;
  /** null for null or absent, else `text`. */
  optional(text: string | null | undefined, field?: RedactionField): Promise<string | null>;
  /**
   * A JSON value with every string redacted, object keys included; other values kept. A rule of
   * `field`'s own applies to every string value whole; object keys (structure, not values) then keep
   * to the label rules, except under `pass_through`, which leaves the whole value as sent.
   */
  value(value: unknown, field?: RedactionField): Promise<unknown>;
  /** `identifierIssues` under this batch's policy. */
  identifierIssues(identifiers: readonly Identifier[]): ValidationIssue[];
}

/**
 * How a caller's events are redacted: `check` sees the whole batch before any text is redacted and
 * throws to refuse it; `redact` maps one event.
 */
export interface EventRedaction<E, R> {
  check?(redact: Redact, events: readonly E[]): void;
  redact(redact: Redact, event: E, index: number): Promise<R>;
}

/** `input`, `output` and the comparator of one event, redacted. */
export async function redactTexts(redact: Redact, e: RedactableFields): Promise<RedactedFields> {
  const [input, output, comparator] = await Promise.all([
    redact.optional(e.input, 'input'),
    redact.optional(e.output, 'output'),
    e.comparator === undefined || e.comparator === null ? null : redact.value(e.comparator, 'comparator'),
  ]);
  return { input_redacted: input, output_redacted: output, comparator };
}

/** What the redactor runs on; server/services.ts builds it (AppServices.redaction). */
export interface RedactionDeps extends RedactionPolicyDeps {
  /** The scan engine: only its `pii` detector is run. */
  engine: ScanEngine;
  /** keyring.redactionHash: the per-organization hash keys derive from it. */
  hashKey: Buffer;
  /** Model inference must finish within this (SCAN_DEADLINE_MS). */
  deadlineMs: number;
}

/** Events per call (the append operation's own bound). */
export const MAX_REDACT_EVENTS = 100;
/**
 * Comparator bounds, per event: nesting depth, and strings (values and object keys; each distinct
 * one of a batch is one detector run). The body limit bounds the rest.
 */
export const MAX_COMPARATOR_DEPTH = 32;
export const MAX_COMPARATOR_STRINGS = 50_000;

const PII = 'pii';
/**
 * Texts of one batch in the detector at once: enough for the dispatcher to micro-batch them, few
 * enough that a large comparator does not fill the pool's queue (POOL_QUEUE_MAX) that scans share.
 */
const IN_FLIGHT = 64;

/**
 * Redacts a batch (1–100 events) of one organization under the policy in force now: by default
 * `input`, `output` and the comparator of each (`redactTexts`), or as `how` says.
 * @throws ProblemError 400 `request.validation_failed` (batch size, comparator too deep or too large),
 * 503 `service.overloaded`, 504 `redaction_policy.redactor_deadline_exceeded`, and what `how.check` throws.
 */
export function redactEvents(
  deps: RedactionDeps,
  orgId: string,
  events: readonly RedactableFields[],
): Promise<RedactionOutcome>;
export function redactEvents<E extends RedactableFields, R>(
  deps: RedactionDeps,
  orgId: string,
  events: readonly E[],
  how: EventRedaction<E, R>,
): Promise<RedactionOutcome<R>>;
export async function redactEvents(
  deps: RedactionDeps,
  orgId: string,
  events: readonly RedactableFields[],
  how: EventRedaction<RedactableFields, unknown> = { redact: redactTexts },
): Promise<RedactionOutcome<unknown>> {
  if (events.length < 1 || events.length > MAX_REDACT_EVENTS)
    throw Errors.validationFailed([{ path: 'events', message: `must hold 1 to ${MAX_REDACT_EVENTS} events` }]);
  const issues = events.flatMap((e, i) => comparatorIssues(e.comparator, `events.${i}.comparator`));
  if (issues.length > 0) throw Errors.validationFailed(issues);
  const { value, ...provenance } = await withRedactor(deps, orgId, (redact) => {
    how.check?.(redact, events);
    return Promise.all(events.map((e, i) => how.redact(redact, e, i)));
  });
  return { events: value, ...provenance };
}

/**
 * Runs `use` with a redactor under the organization's policy in force now (each distinct text detected
 * once, all within one SCAN_DEADLINE_MS); what it answers comes back with the policy that redacted it.
 * @throws ProblemError 503 `service.overloaded`, 504 `redaction_policy.redactor_deadline_exceeded`, and
 * what `use` throws.
 */
export async function withRedactor<T>(
  deps: RedactionDeps,
  orgId: string,
  use: (redact: Redact) => Promise<T>,
): Promise<RedactionProvenance & { value: T }> {
  const policy = await getRedactionPolicy(deps, orgId);
  const redactor = new TextRedactor(deps, policy, organizationHashKey(deps.hashKey, orgId), orgId);
  try {
    const value = await use(redactor);
    return { value, redaction_version: policy.redaction_version, redaction_policy_id: policy.id };
  } catch (err) {
    if (err instanceof ModelOverloadedError) throw Errors.overloaded(err.retryAfterSeconds);
    if (err instanceof ModelDeadlineError) throw Errors.redactionDeadlineExceeded(deps.deadlineMs);
    throw err;
  }
}

/**
 * The labels of the structured identifiers (the regex recognizers: e-mail, phone, card, SSN, …) in
 * `text` that `rules` would not pass through, each once. No model: names are not looked for (the NER
 * model takes identifiers such as `jailbreak` or `corpus-1` for a PERSON).
 */
function hiddenLabels(rules: ObfuscationRules, text: string): string[] {
  const items = findPiiRegex({ text: normalize(text), surface: 'document', tier: 'fast' });
  return [...new Set(items.map((i) => i.label))].filter((l) => obfuscationOf(rules, l) !== 'pass_through');
}

/** Framework references (`{framework, id}` at `at`.<j>) are names a caller filters and joins by: verbatim. */
export function frameworkRefIdentifiers(refs: readonly { framework: string; id: string }[], at: string): Identifier[] {
  return refs.flatMap((r, j): Identifier[] => [
    [`${at}.${j}.framework`, r.framework],
    [`${at}.${j}.id`, r.id],
  ]);
}

/**
 * One issue per verbatim string holding a structured identifier `rules` hide, naming its path and the
 * labels, never the value: rewriting such a string would break what groups or joins by it, and
 * keeping it would store the raw value, so the caller refuses it.
 */
export function identifierIssues(rules: ObfuscationRules, identifiers: readonly Identifier[]): ValidationIssue[] {
  return identifiers.flatMap(([path, value]): ValidationIssue[] => {
    const labels = hiddenLabels(rules, value);
    if (labels.length === 0) return [];
    const message = `holds ${labels.join(', ')}, which the redaction policy hides; this field is stored verbatim`;
    return [{ path, message }];
  });
}

/** Runs the PII detector once per distinct text of a batch and obfuscates what it found. */
class TextRedactor implements Redact {
  private readonly done = new Map<string, Promise<string>>();
  private readonly deadlineAt: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly deps: RedactionDeps,
    private readonly rules: ObfuscationRules,
    private readonly orgKey: Buffer,
    /** The organization: its texts share the model pool with other organizations in turn. */
    private readonly tenant: string,
  ) {
    this.deadlineAt = Date.now() + deps.deadlineMs;
  }

  optional(text: string | null | undefined, field?: RedactionField): Promise<string | null> {
    return text === undefined || text === null ? Promise.resolve(null) : this.text(text, field);
  }

  value(value: unknown, field?: RedactionField): Promise<unknown> {
    return redactValue(this, value, field, fieldRuleOf(this.rules, field) === 'pass_through');
  }

  identifierIssues(identifiers: readonly Identifier[]): ValidationIssue[] {
    return identifierIssues(this.rules, identifiers);
  }

  text(text: string, field?: RedactionField): Promise<string> {
    const whole = fieldRuleOf(this.rules, field);
    if (whole !== undefined) return Promise.resolve(obfuscateWhole(text, field!, whole, this.orgKey));
    if (text.trim() === '') return Promise.resolve(text);
    let out = this.done.get(text);
    if (!out) {
      out = this.items(text).then((items) => obfuscateText(text, items, this.rules, this.orgKey));
      // one failure fails the batch; the promise is awaited there, so no unhandled rejection here
      out.catch(() => undefined);
      this.done.set(text, out);
    }
    return out;
  }

  private async items(text: string): Promise<FindingItem[]> {
    if (this.running >= IN_FLIGHT) await new Promise<void>((go) => this.waiting.push(go));
    this.running += 1;
    try {
      const outcome = await this.deps.engine.scan(
        { surface: 'document', text, tier: 'accurate', detectors: [PII] },
        { deadlineAt: this.deadlineAt, tenant: this.tenant },
      );
      return outcome.runs.find((r) => r.result.detector === PII)?.result.items ?? [];
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

/**
 * A comparator payload with every string (object keys included) redacted; other values kept. String
 * values go by `field`'s own rule when it has one; keys by the label rules, or as sent when `keepKeys`.
 */
async function redactValue(
  redactor: TextRedactor,
  value: unknown,
  field: RedactionField | undefined,
  keepKeys: boolean,
): Promise<unknown> {
  if (typeof value === 'string') return redactor.text(value, field);
  if (Array.isArray(value)) return Promise.all(value.map((v) => redactValue(redactor, v, field, keepKeys)));
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(
        async ([k, v]) =>
          [keepKeys ? k : await redactor.text(k), await redactValue(redactor, v, field, keepKeys)] as const,
      ),
    );
    return Object.fromEntries(entries);
  }
  return value;
}

/** Why a comparator is beyond the bounds (too deep, too many strings), or nothing. */
function comparatorIssues(value: unknown, path: string): ValidationIssue[] {
  let strings = 0;
  let tooDeep = false;
  const walk = (v: unknown, depth: number): void => {
    if (tooDeep || strings > MAX_COMPARATOR_STRINGS) return;
    if (typeof v === 'string') strings += 1;
    if (v === null || typeof v !== 'object') return;
    if (depth >= MAX_COMPARATOR_DEPTH) {
      tooDeep = true;
      return;
    }
    for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      if (typeof k === 'string') strings += 1;
      walk(child, depth + 1);
    }
  };
  walk(value, 0);
  if (tooDeep) return [{ path, message: `must nest at most ${MAX_COMPARATOR_DEPTH} levels deep` }];
  if (strings > MAX_COMPARATOR_STRINGS)
    return [{ path, message: `must hold at most ${MAX_COMPARATOR_STRINGS} strings (object keys included)` }];
  return [];
}
