-- Idempotency records belong to the principal that made them (req.principal.actor_id: the API key id
-- today, an SSO subject later). A stored response may hold a one-time secret (a key or webhook create,
-- a rotation), so a reuse of the key by anyone else is refused (409), never replayed.
-- Rows written before this migration have no principal (NULL): they are never replayed to anyone nor
-- run again (409 until they expire, within IDEMPOTENCY_TTL_HOURS), since nobody can tell who made them.
-- Nullable for those rows only; every claim from now on writes its principal.
ALTER TABLE idempotency_keys ADD COLUMN principal_id text;
