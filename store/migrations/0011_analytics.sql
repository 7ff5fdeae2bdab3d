-- Analytics rollups (issue 21, docs/analytics.md): scans folded into 15-minute buckets per
-- organization by the rollup-analytics job, which the analytics endpoints read.

-- The id of the transaction that inserted the scan (pg_current_xact_id as a bigint: 64-bit, never
-- wraps). The job recomputes the buckets of every scan whose transaction id is at or above its
-- watermark: a scan committed late (after its bucket was rolled up) is found by its transaction,
-- not its time. Added without a default first and the default set after, so existing rows keep
-- NULL and the table is not rewritten; the job's first run rolls every existing bucket up.
ALTER TABLE scans ADD COLUMN ingest_xid bigint;
ALTER TABLE scans ALTER COLUMN ingest_xid SET DEFAULT (pg_current_xact_id()::text::bigint);
CREATE INDEX scans_ingest_xid_idx ON scans (ingest_xid) WHERE ingest_xid IS NOT NULL;

-- One row per organization and 15-minute bucket with traffic: the whole bucket, recomputed from its
-- scans each time it is rolled up (a replace, never an increment: re-running gives the same row).
CREATE TABLE analytics_buckets (
  org_id        text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  bucket_start  timestamptz NOT NULL
                CHECK (date_bin('15 minutes', bucket_start, '1970-01-01T00:00:00Z') = bucket_start),
  -- by effective action (observed_action ?? action: observe mode counts what enforcing would do)
  total         integer NOT NULL CHECK (total > 0),
  allowed       integer NOT NULL,
  flagged       integer NOT NULL,
  warned        integer NOT NULL,
  blocked       integer NOT NULL,
  -- {surface: scans}
  surfaces      jsonb NOT NULL,
  -- {detector: scans in which it reported at least one finding item}
  detectors     jsonb NOT NULL,
  -- the scans' latency_ms as a DDSketch (lib/latency-sketch.ts LatencySketchData, α = 1 %)
  latency       jsonb NOT NULL,
  PRIMARY KEY (org_id, bucket_start),
  CHECK (allowed + flagged + warned + blocked = total)
);

-- The rollup job's progress: one row. Every scan inserted by a transaction whose id is below
-- `xid_watermark` is in analytics_buckets.
CREATE TABLE analytics_rollup_state (
  singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  xid_watermark  bigint NOT NULL,
  rolled_up_at   timestamptz NOT NULL
);
