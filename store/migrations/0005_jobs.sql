-- Agenda's job table, created here rather than by the backend at connect (it runs with
-- ensureSchema: false), so N processes starting at once never race on DDL: migrations run under
-- the advisory lock in store/migrate.ts.
--
-- Copied from @agendajs/postgres-backend@3.0.6: getCreateTableSQL('agenda_jobs'),
-- getCreateIndexesSQL('agenda_jobs') and getUpdateTimestampTriggerSQL('agenda_jobs') (the trigger
-- is what ensureSchema would also have created). getMigrationSQL's columns (start_date, end_date,
-- skip_days) are already in the table. When upgrading the package, compare with its schema.js and
-- add a new migration; test/unit/jobs-schema.test.ts fails when they drift apart.

CREATE TABLE IF NOT EXISTS "agenda_jobs" (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  name VARCHAR(255) NOT NULL,
  priority INTEGER NOT NULL DEFAULT 0,
  next_run_at TIMESTAMPTZ,
  type VARCHAR(10) NOT NULL DEFAULT 'normal' CHECK (type IN ('normal', 'single')),
  locked_at TIMESTAMPTZ,
  last_finished_at TIMESTAMPTZ,
  failed_at TIMESTAMPTZ,
  fail_count INTEGER DEFAULT NULL,
  fail_reason TEXT,
  repeat_timezone VARCHAR(100),
  last_run_at TIMESTAMPTZ,
  repeat_interval VARCHAR(255),
  data JSONB DEFAULT '{}'::jsonb,
  repeat_at VARCHAR(255),
  disabled BOOLEAN DEFAULT FALSE,
  progress REAL,
  fork BOOLEAN DEFAULT FALSE,
  last_modified_by VARCHAR(255),
  debounce_started_at TIMESTAMPTZ,
  start_date TIMESTAMPTZ,
  end_date TIMESTAMPTZ,
  skip_days JSONB,
  created_at TIMESTAMPTZ DEFAULT NOW(),
  updated_at TIMESTAMPTZ DEFAULT NOW()
);

-- find and lock the next job
CREATE INDEX IF NOT EXISTS "agenda_jobs_find_and_lock_idx"
  ON "agenda_jobs" (name, next_run_at, priority DESC, locked_at, disabled)
  WHERE disabled = FALSE;
-- recurring (type 'single') jobs: one row per name; agenda.every() upserts on it
CREATE UNIQUE INDEX IF NOT EXISTS "agenda_jobs_single_job_idx"
  ON "agenda_jobs" (name) WHERE type = 'single';
-- stale lock detection
CREATE INDEX IF NOT EXISTS "agenda_jobs_locked_at_idx"
  ON "agenda_jobs" (locked_at) WHERE locked_at IS NOT NULL;
-- queue size, scheduled jobs
CREATE INDEX IF NOT EXISTS "agenda_jobs_next_run_at_idx"
  ON "agenda_jobs" (next_run_at) WHERE next_run_at IS NOT NULL;

CREATE OR REPLACE FUNCTION update_agenda_jobs_updated_at()
RETURNS TRIGGER AS $$
BEGIN
  NEW.updated_at = NOW();
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS "agenda_jobs_updated_at_trigger" ON "agenda_jobs";

CREATE TRIGGER "agenda_jobs_updated_at_trigger"
BEFORE UPDATE ON "agenda_jobs"
FOR EACH ROW
EXECUTE FUNCTION update_agenda_jobs_updated_at();

-- The retention job (jobs/expire-scan-content.ts) needs no new index: 0002's
-- scans_content_expiry_idx ON scans (content_expires_at) WHERE content IS NOT NULL matches its
-- predicate exactly, and a row leaves that partial index once its content is cleared.
