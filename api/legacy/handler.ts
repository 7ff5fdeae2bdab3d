/**
 * `POST /v1/analysis/{analysis_id}`: key → scope → analysis id, query and body → session → quota →
 * one v1 scan of the text (recorded like any other: audit, webhooks and analytics see it) → the
 * spec's `{analysis: [...]}`, one element per requested detection in request order (docs/legacy.md).
 */
import type { Request, Response } from 'express';
import type { DetectorResult, Surface } from '../../engine/detector.ts';
import { findSensitivePaths } from '../../engine/detectors/sensitive-path/matcher.ts';
import { normalize } from '../../engine/normalize.ts';
import { hasScope } from '../../lib/scopes.ts';
import { analysisExists } from '../../services/legacy-analyses.ts';
import { takeLegacyRequest } from '../../services/legacy-quota.ts';
import type { Principal } from '../../services/principal.ts';
import type { CreateScanInput } from '../../services/scan-input.ts';
import { createScan } from '../../services/scans.ts';
import type { AppServices } from '../context.ts';
import type { ParsedQuery } from '../query-parser.ts';
import type { BodyReader } from './body.ts';
import { LegacyErrors } from './errors.ts';
import { longInjection } from './long-injection.ts';
import {
  checkContentType,
  readAnalysisId,
  readQuery,
  STANDARD_MAX_CHARS,
  type Detection,
  type LegacyQuery,
} from './request.ts';
import { piiElement, promptInjectionElement, sensitivePathElement } from './shapes.ts';

/** The v1 detector each legacy detection runs. */
const DETECTORS: Readonly<Record<Detection, string>> = {
  prompt_injection: 'prompt_injection',
  pii: 'pii',
  sensitive_path_detection: 'sensitive_path',
};

const SURFACES: Readonly<Record<LegacyQuery['scanType'], Surface>> = {
  input: 'user_message',
  output: 'assistant_output',
};

/**
 * An API key (an SSO session token is not one) holding `scans:write`.
 * @throws LegacyError 401 INVALID_API_KEY, 403 ACCESS_DENIED.
 */
function apiKeyPrincipal(req: Request): Principal {
  const p = req.principal;
  if (!p || p.type !== 'api_key') throw LegacyErrors.invalidApiKey();
  if (!hasScope(p.scopes, 'scans:write')) throw LegacyErrors.accessDenied();
  return p;
}

/** The route handler; errors go to the listener's error middleware (api/legacy/errors.ts). */
export function analysisHandler(s: AppServices, bodies: BodyReader) {
  return async (req: Request, res: Response): Promise<void> => {
    const principal = apiKeyPrincipal(req);
    const rawId = String(req.params.analysis_id);
    const analysisId = readAnalysisId(rawId);
    const query = readQuery(req.query as ParsedQuery);
    checkContentType(req);
    const text = await bodies.read(
      req,
      res,
      query.long ? s.config.LEGACY_LONG_MAX_CHARS : STANDARD_MAX_CHARS,
      query.long,
    );
    if (text.length > s.config.SCAN_MAX_TEXT_CHARS)
      throw LegacyErrors.contentTooLong(Math.min(s.config.LEGACY_LONG_MAX_CHARS, s.config.SCAN_MAX_TEXT_CHARS), true);
    if (analysisId === null || !(await analysisExists(s.db, principal.org_id, analysisId)))
      throw LegacyErrors.analysisNotFound(rawId);

    const now = s.clock.now();
    const quota = await takeLegacyRequest(s.db, principal.org_id, now, s.config.LEGACY_MONTHLY_QUOTA);
    res.setHeader('X-Quota-Limit', String(quota.limit));
    res.setHeader('X-Quota-Remaining', String(Math.max(0, quota.limit - quota.used)));
    if (!quota.allowed) throw LegacyErrors.quotaExceeded(quota.limit, quota.resetsAt, now);

    const analysis = await analyze(s, principal, req.id, analysisId, query, text);
    // Header values are ASCII: the tag percent-encoded as a URI component (`tag_…` tags read the same).
    res.setHeader('X-Tag', encodeURIComponent(query.tag));
    res.status(200).json({ analysis, tag: query.tag });
  };
}

/** Runs and records the scan (and, in long mode, the chunked prompt-injection analysis beside it). */
async function analyze(
  s: AppServices,
  principal: Principal,
  requestId: string,
  analysisId: number,
  query: LegacyQuery,
  text: string,
): Promise<unknown[]> {
  const surface = SURFACES[query.scanType];
  const input: CreateScanInput = {
    kind: 'content',
    surface,
    content: { type: 'text', text },
    context: { trace_id: query.tag, agent_id: `legacy-analysis-${analysisId}` },
    options: { capture: query.capture, detectors: query.detections.map((d) => DETECTORS[d]), tier: 'accurate' },
  };
  const results = new Map<string, DetectorResult>();
  // Long mode scores the text chunk by chunk first; the recorded scan takes the best chunk's result
  // rather than embedding the whole text again.
  const long =
    query.long && query.detections.includes('prompt_injection')
      ? await longInjection(s.engine, text, surface, Date.now() + s.config.SCAN_DEADLINE_MS, principal.org_id)
      : null;
  await createScan(s.scans, principal.org_id, input, {
    apiKeyId: principal.actor_id,
    requestId,
    onResult: (run) => results.set(run.result.detector, run.result),
    ...(long ? { precomputed: new Map([['prompt_injection', long.result]]) } : {}),
  });
  const registry = s.engine.registry;
  return query.detections.map((d) => {
    if (d === 'prompt_injection')
      return (
        long?.element ??
        promptInjectionElement(results.get('prompt_injection')!, registry.get('prompt_injection')!.thresholds)
      );
    if (d === 'pii') return piiElement(results.get('pii')?.items ?? []);
    return sensitivePathElement(findSensitivePaths({ text: normalize(text), surface, tier: 'accurate' }));
  });
}
