import type { Request } from 'express';
import { entries } from '../../../lib/error-catalogue.ts';
import { parseIdParam } from '../../../lib/ids.ts';
import { Errors } from '../../../lib/errors.ts';
import { checkScanRequest, createScan, getScan, listScans, type ScanDeps } from '../../../services/scans.ts';
import { streamedFinding } from '../../../services/scan-findings.ts';
import { clientGone } from '../../client-gone.ts';
import { storedScan } from '../../../services/scan-masking.ts';
import type { ScanRow } from '../../../store/scans.ts';
import type { AppServices } from '../../context.ts';
import type { IdempotencyHandle } from '../../middleware/idempotency.ts';
import { problemBody, toProblem } from '../../middleware/problem.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import { page, readIdCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentScanResource } from './presenter.ts';
import { SCAN_STREAM_DESCRIPTION, SCAN_STREAM_EVENTS, Scan, ScanPage } from './responses.ts';
import { createScanBody, listScansQuery, scanIdParams } from './schema.ts';
import { EventStream } from './sse.ts';

const LIST = 'scans';

const wantsStream = (req: Request) => (req.get('accept') ?? '').toLowerCase().includes('text/event-stream');

/**
 * Scans: create `POST /v1/scans` (JSON, or server-sent events with `Accept: text/event-stream`),
 * list `GET /v1/scans`, get `GET /v1/scans/{scan_id}` (the `scan_` prefix is optional).
 */
export function scanRoutes(routes: Routes, s: AppServices, deps: ScanDeps): void {
  routes.post('/v1/scans', {
    operationId: 'createScan',
    access: 'scans:write',
    body: createScanBody(s.config.SCAN_MAX_TEXT_CHARS),
    // Tool results and documents may carry NUL or a lone surrogate: the scanned content stores each as
    // U+FFFD (findings index it by character offset); elsewhere in the body they are 400.
    replaceUnstorableIn: ['content'],
    responds: [
      { status: 201, body: Scan, headers: ['Location'], description: 'The scan, decided and stored.' },
      { status: 200, description: SCAN_STREAM_DESCRIPTION, events: SCAN_STREAM_EVENTS },
    ],
    errors: [
      entries.unknownDetector,
      entries.policyNotFound,
      entries.scanCharactersExceeded,
      entries.overloaded,
      entries.scanDeadlineExceeded,
    ],
    handler: async ({ req, res, principal, body }) => {
      // A client that goes away calls its scan off: waiting model work is dropped, nothing is stored, and
      // an Idempotency-Key is released (499), so a retry runs the scan afresh.
      const meta = { apiKeyId: principal.actor_id, requestId: req.id, signal: clientGone(res) };
      const idem = res.locals.idempotency as IdempotencyHandle | undefined;
      // The answer carries the matched text the caller sent; its replay is the scan as stored (an
      // uncaptured scan's text masked), so no raw text is kept for the replay either.
      const replay = (row: ScanRow, headers?: Record<string, string>) =>
        idem?.record(201, presentScanResource(storedScan(row), s.clock.now()), headers);
      if (!wantsStream(req)) {
        const row = await createScan(deps, principal.org_id, body, meta);
        const location = `/v1/scans/${row.id}`;
        // as send() would: an unrecorded replay is logged, and the committed scan still answered
        await replay(row, { location })?.catch((err: Error) =>
          req.log.error({ err: err.message }, 'idempotency record failed'),
        );
        res.status(201).location(location).json(presentScanResource(row, s.clock.now()));
        return;
      }
      const policy = await checkScanRequest(deps, principal.org_id, body);
      const stream = new EventStream(res);
      stream.start();
      try {
        const row = await createScan(deps, principal.org_id, body, {
          ...meta,
          policy,
          onResult: (run) => stream.send('detector', streamedFinding(deps.engine.registry, run)),
        });
        await replay(row);
        stream.send('decision', presentScanResource(row, s.clock.now()));
      } catch (err) {
        // The same mapping as the error handler's (a database outage is 503, not 500).
        let problem = toProblem(err, s.config.BODY_LIMIT_BYTES);
        if (!problem) {
          req.log.error({ err: (err as Error).message }, 'streamed scan failed');
          s.metrics.unhandledErrors.inc();
          problem = Errors.internal();
        }
        await idem?.release().catch(() => undefined);
        stream.send('error', problemBody(problem, req));
      }
      stream.end();
    },
  });

  routes.get('/v1/scans/:scan_id', {
    operationId: 'getScan',
    access: 'scans:read',
    params: scanIdParams,
    responds: { status: 200, body: Scan },
    errors: [entries.scanNotFound],
    handler: async ({ res, principal, params }) => {
      const id = parseIdParam('scan', params.scan_id, true)!;
      res.json(presentScanResource(await getScan(s.db, principal.org_id, id), s.clock.now()));
    },
  });

  routes.get('/v1/scans', {
    operationId: 'listScans',
    access: 'scans:read',
    query: listScansQuery,
    responds: { status: 200, body: ScanPage },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const before = readIdCursor(s.cursors, LIST, principal.org_id, query.cursor);
      const { rows, more } = await listScans(s.db, principal.org_id, query, before);
      const now = s.clock.now();
      res.json(
        page(
          s.cursors,
          LIST,
          principal.org_id,
          rows.map((r) => presentScanResource(r, now)),
          rows.at(-1)?.id,
          more,
        ),
      );
    },
  });
}
