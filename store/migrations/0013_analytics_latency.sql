-- Latency sketches pre-merged per hour and per day (issue 21, docs/analytics.md): the latency view
-- reads one row per point instead of merging up to 96 fifteen-minute sketches per point on every
-- request. Recomputed by rollup-analytics from analytics_buckets whenever one of their buckets is.
CREATE TABLE analytics_latency (
  org_id     text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  grain      text NOT NULL CHECK (grain IN ('1h', '1d')),
  bin_start  timestamptz NOT NULL,
  -- the merged DDSketch (lib/latency-sketch.ts LatencySketchData) of the bin's 15-minute buckets
  latency    jsonb NOT NULL,
  PRIMARY KEY (org_id, grain, bin_start),
  CHECK (date_bin(CASE grain WHEN '1h' THEN interval '1 hour' ELSE interval '1 day' END, bin_start,
                  '1970-01-01T00:00:00Z') = bin_start)
);
