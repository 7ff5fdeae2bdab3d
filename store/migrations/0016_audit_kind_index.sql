-- Detection events (one per non-allowed scan, written by the group-commit writer) no longer maintain
-- an index on kind (issue 41, docs/performance.md "The database share"). Nearly every audit event is
-- a detection event, so a page of kind = 'detection' reads audit_events_org_page_idx and skips the
-- few management events on the way; a page of kind = 'management' reads this partial index, which
-- management changes alone maintain. An organization with no detection events pays at most its
-- management events (made by people, so few) for a kind = 'detection' page.
CREATE INDEX audit_events_org_management_idx ON audit_events (org_id, id DESC) WHERE kind = 'management';
DROP INDEX audit_events_org_kind_idx;
