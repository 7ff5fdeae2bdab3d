import {
  appendLabeledEvents,
  deleteLabeledEvent,
  getLabeledEvent,
  listLabeledEvents,
  type LabeledEventDeps,
} from '../../../services/labeled-events.ts';
import type { AppServices } from '../../context.ts';
import { readCursor } from '../../pagination.ts';
import type { Routes } from '../../route.ts';
import { presentLabeledEvent } from './presenter.ts';
import { appendBody, cursorPayload, eventIdParams, listQuery } from './schema.ts';

const LIST = 'labeled_events';

/**
 * Labeled events (docs/api.md, Labeled events): append `POST /v1/labeled-events` (201
 * `{accepted, event_ids}`, scope labeled_events:write), list `GET /v1/labeled-events` and get
 * `GET /v1/labeled-events/{event_id}` (labeled_events:read), delete `DELETE
 * /v1/labeled-events/{event_id}` (204, labeled_events:delete).
 */
export function labeledEventRoutes(routes: Routes, s: AppServices): void {
  const deps: LabeledEventDeps = { db: s.db, clock: s.clock, redaction: s.redaction };

  routes.post('/v1/labeled-events', {
    access: 'labeled_events:write',
    body: appendBody,
    handler: async ({ res, principal, body }) => {
      const ids = await appendLabeledEvents(deps, principal.org_id, body.events);
      res.status(201).json({ accepted: ids.length, event_ids: ids });
    },
  });

  routes.get('/v1/labeled-events', {
    access: 'labeled_events:read',
    query: listQuery,
    handler: async ({ res, principal, query }) => {
      const after = readCursor(s.cursors, LIST, principal.org_id, query.cursor, cursorPayload);
      const { rows, more } = await listLabeledEvents(deps, principal.org_id, query, after);
      const last = rows.at(-1);
      res.json({
        data: rows.map((r) => presentLabeledEvent(r, false)),
        next_cursor:
          more && last
            ? s.cursors.encode(LIST, principal.org_id, { observed_at: last.observed_at.toISOString(), id: last.id })
            : null,
      });
    },
  });

  routes.get('/v1/labeled-events/:event_id', {
    access: 'labeled_events:read',
    params: eventIdParams,
    handler: async ({ res, principal, params }) => {
      res.json(presentLabeledEvent(await getLabeledEvent(deps, principal.org_id, params.event_id), true));
    },
  });

  routes.delete('/v1/labeled-events/:event_id', {
    access: 'labeled_events:delete',
    params: eventIdParams,
    handler: async ({ req, res, principal, params }) => {
      await deleteLabeledEvent(deps, principal.org_id, params.event_id, { id: principal.actor_id, requestId: req.id });
      res.status(204).send();
    },
  });
}
