-- Audit queries by detector and by surface (detection events only carry them), like the other
-- filters: an equality plus an id range, newest first.
CREATE INDEX audit_events_org_detector_idx ON audit_events (org_id, detector, id DESC) WHERE detector IS NOT NULL;
CREATE INDEX audit_events_org_surface_idx  ON audit_events (org_id, surface, id DESC) WHERE surface IS NOT NULL;
