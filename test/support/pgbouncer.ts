/**
 * A real PgBouncer for tests: started by `npm run test:pgbouncer`'s global setup for the whole run
 * (test/global-setup.ts) and by test/integration/pgbouncer.test.ts for its own checks. The launcher
 * lives in benchmarks/ (tests may import benchmarks, never the reverse) so `npm run bench:scan-insert`
 * measures through the same one.
 */
export { PgBouncer, pgbouncerInstalled, type PgBouncerOptions } from '../../benchmarks/pgbouncer.ts';
