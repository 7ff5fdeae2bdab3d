import type { Request } from 'express';
import { listAuditEvents } from '../../../services/audit.ts';
import type { AppServices } from '../../context.ts';
import { page, readIdCursor } from '../../pagination.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import type { Routes } from '../../route.ts';
import { streamCsv } from './csv.ts';
import { AUDIT_EVENT_FIELDS, presentAuditEvent } from './presenter.ts';
import { AuditEventPage, listAuditEventsQuery } from './schema.ts';

const LIST = 'audit';

/** CSV only when the client prefers it; JSON when Accept prefers JSON, says anything else, or is absent. */
const wantsCsv = (req: Request) => req.accepts(['application/json', 'text/csv']) === 'text/csv';

/** This request's URL with `cursor` replaced: the `Link: rel="next"` target. */
function nextUrl(req: Request, cursor: string): string {
  const url = new URL(req.originalUrl, 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `${url.pathname}${url.search}`;
}

/**
 * Audit log: `GET /v1/audit-events`, newest first, as a JSON page or (`Accept: text/csv`) the same
 * page as CSV with the next cursor in `Next-Cursor` and `Link` headers.
 */
export function auditEventRoutes(routes: Routes, s: AppServices): void {
  routes.get('/v1/audit-events', {
    operationId: 'listAuditEvents',
    access: 'audit:read',
    query: listAuditEventsQuery,
    responds: {
      status: 200,
      body: AuditEventPage,
      headers: ['Next-Cursor', 'Link'],
      other: {
        'text/csv':
          `With \`Accept: text/csv\` (preferred over JSON): the same page as CSV (RFC 4180), a header row ` +
          `(${AUDIT_EVENT_FIELDS.join(', ')}) then one row per event; tags joined by \`;\`, null as an empty ` +
          "field, a cell starting with `=`, `+`, `-` or `@` prefixed with `'`. When another page follows, its " +
          'cursor is in the `Next-Cursor` header and a `Link: <…>; rel="next"` header.',
      },
    },
    errors: [cursorProblem(LIST)],
    handler: async ({ req, res, principal, query }) => {
      const before = readIdCursor(s.cursors, LIST, principal.org_id, query.cursor);
      const { rows, more } = await listAuditEvents(s.db, principal.org_id, query, before);
      const body = page(s.cursors, LIST, principal.org_id, rows.map(presentAuditEvent), rows.at(-1)?.id, more);
      res.vary('Accept');
      if (!wantsCsv(req)) {
        res.json(body);
        return;
      }
      res.status(200).setHeader('Content-Type', 'text/csv; charset=utf-8');
      if (body.next_cursor) {
        res.setHeader('Next-Cursor', body.next_cursor);
        res.setHeader('Link', `<${nextUrl(req, body.next_cursor)}>; rel="next"`);
      }
      await streamCsv(
        res,
        AUDIT_EVENT_FIELDS,
        body.data.map((e) => AUDIT_EVENT_FIELDS.map((f) => e[f])),
      );
    },
  });
}
