/**
 * What a legacy request asks for: the path's analysis id, the query parameters and the text/plain
 * body, each checked with a 400 that names the parameter and says how to fix it (docs/legacy.md).
 */
import type { Request } from 'express';
import { ulid } from 'ulid';
import { LegacyErrors } from './errors.ts';

export const DETECTIONS = ['prompt_injection', 'pii', 'sensitive_path_detection'] as const;
export type Detection = (typeof DETECTIONS)[number];

/** The spec's standard-mode limit, in characters (Unicode code points). */
export const STANDARD_MAX_CHARS = 5000;

export interface LegacyQuery {
  tag: string;
  /** In request order, duplicates dropped. */
  detections: Detection[];
  scanType: 'input' | 'output';
  capture: boolean;
  long: boolean;
}

const PARAMETERS = ['tag', 'detections', 'scan_type', 'capture', 'long_prompt_injection'] as const;
const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, false: false, '1': true, '0': false };
// Ids are never 0 and fit PostgreSQL's integer: larger numbers name no session (404, not 400).
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;
const MAX_ANALYSIS_ID = 2_147_483_647;

/**
 * The path's `analysis_id`: a positive integer, or null for one too large to name any session.
 * @throws LegacyError 400 INVALID_PARAMETER.
 */
export function readAnalysisId(raw: string): number | null {
  if (!POSITIVE_INTEGER.test(raw))
    throw LegacyErrors.invalidParameter(
      'analysis_id',
      'analysis_id must be a positive integer.',
      'Use the analysis_id POST /v1/legacy-analyses returned, e.g. /v1/analysis/1.',
    );
  const id = Number(raw);
  return id > MAX_ANALYSIS_ID ? null : id;
}

/** @throws LegacyError 400 INVALID_PARAMETER naming the first parameter at fault. */
export function readQuery(query: Record<string, string | string[]>): LegacyQuery {
  for (const [name, value] of Object.entries(query)) {
    if (!(PARAMETERS as readonly string[]).includes(name))
      throw LegacyErrors.invalidParameter(
        name,
        `Unknown query parameter "${name}".`,
        `Valid parameters: ${PARAMETERS.join(', ')}.`,
      );
    if (Array.isArray(value))
      throw LegacyErrors.invalidParameter(name, `${name} is given more than once.`, `Give ${name} once.`);
  }
  const q = query as Record<string, string | undefined>;
  return {
    tag: readTag(q.tag),
    detections: readDetections(q.detections),
    scanType: readScanType(q.scan_type),
    capture: readBoolean('capture', q.capture, true),
    long: readBoolean('long_prompt_injection', q.long_prompt_injection, false),
  };
}

function readTag(raw: string | undefined): string {
  if (raw === undefined) return `tag_${ulid()}`;
  // The scan's trace_id holds 255 UTF-16 units: a character past U+FFFF counts as two.
  if (raw.length < 1 || raw.length > 255)
    throw LegacyErrors.invalidParameter(
      'tag',
      'tag must be 1 to 255 characters.',
      'Omit tag to have one generated, or send a shorter one.',
    );
  if (raw.includes('\0'))
    throw LegacyErrors.invalidParameter('tag', 'tag must not contain NUL (U+0000).', 'Remove the NUL character.');
  return raw;
}

function readDetections(raw: string | undefined): Detection[] {
  if (raw === undefined) return ['prompt_injection'];
  const valid = `Valid detections: ${DETECTIONS.join(', ')} (comma-separated).`;
  const out: Detection[] = [];
  for (const part of raw.split(',')) {
    const name = part.trim();
    if (!(DETECTIONS as readonly string[]).includes(name))
      throw LegacyErrors.invalidParameter(
        'detections',
        name === '' ? 'detections has an empty entry.' : `Unknown detection "${name}".`,
        valid,
      );
    if (!out.includes(name as Detection)) out.push(name as Detection);
  }
  return out;
}

function readScanType(raw: string | undefined): 'input' | 'output' {
  if (raw === undefined || raw === 'input' || raw === 'output') return raw ?? 'input';
  throw LegacyErrors.invalidParameter(
    'scan_type',
    `scan_type must be input or output, not "${raw}".`,
    'Use scan_type=input for prompts and scan_type=output for model responses.',
  );
}

function readBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  const value = BOOLEANS[raw.toLowerCase()];
  if (value === undefined)
    throw LegacyErrors.invalidParameter(name, `${name} must be true or false.`, `Use ${name}=true or ${name}=false.`);
  return value;
}

const TEXT_PLAIN = /^text\/plain\s*(;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * The Content-Type must be text/plain, in UTF-8 when a charset is named.
 * @throws LegacyError 400 INVALID_PARAMETER at "Content-Type".
 */
export function checkContentType(req: Request): void {
  const type = req.get('content-type') ?? '';
  const charset = CHARSET.exec(type)?.[1]?.toLowerCase();
  if (TEXT_PLAIN.test(type) && (charset === undefined || charset === 'utf-8' || charset === 'utf8')) return;
  throw LegacyErrors.invalidParameter(
    'Content-Type',
    type ? `Content-Type ${type} is not supported.` : 'The Content-Type header is missing.',
    'Send the text as the body with Content-Type: text/plain; charset=utf-8.',
  );
}
