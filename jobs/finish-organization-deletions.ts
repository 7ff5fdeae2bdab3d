import { identityProviderFromConfig } from '../services/identity.ts';
import type { IdentityProvider } from '../services/identity-provider.ts';
import { deleteInProvider } from '../services/org-lifecycle.ts';
import { listProviderDeletionsDue } from '../store/orgs.ts';
import type { JobContext } from './job.ts';

export const name = 'finish-organization-deletions';
export const every = '5 minutes';

/** Deleted organizations retried per run. */
const PER_RUN = 100;

let provider: IdentityProvider | null = null;

/**
 * Deletes, in the identity provider, organizations deleted here whose provider deletion failed at the
 * time (the local deletion stands; services/org-lifecycle.ts). Returns how many it confirmed; the
 * rest wait for the next run.
 */
export async function run(ctx: JobContext): Promise<number> {
  provider ??= identityProviderFromConfig(ctx.config);
  const due = await listProviderDeletionsDue(ctx.db, PER_RUN);
  let done = 0;
  for (const externalId of due) {
    if (await deleteInProvider({ db: ctx.db, clock: ctx.clock, logger: ctx.logger, provider }, externalId)) done += 1;
    await ctx.touch();
  }
  return done;
}
