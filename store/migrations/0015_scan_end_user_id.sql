-- The end-user id as submitted in a scan's context (the spec returns the context "as submitted plus
-- end_user_id_hash"). Null when not submitted, for scans stored before this migration, and when the
-- deployment drops it for privacy (SCAN_END_USER_ID=drop: only the hash is kept). Nullable without a
-- default: adding it rewrites nothing.
ALTER TABLE scans ADD COLUMN end_user_id text;
