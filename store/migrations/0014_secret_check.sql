-- The master secret's fingerprint (lib/crypto.ts secretFingerprint), recorded by the first process that
-- opens the database: a later start with another SECRET_KEY or DATA_DIR/secret.key is refused instead of
-- silently invalidating every API key, webhook secret and cursor (store/secret-check.ts). One row.
CREATE TABLE secret_check (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  fingerprint text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
