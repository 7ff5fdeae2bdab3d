/**
 * The committed OpenAPI artifacts (docs/openapi.json, client/api-types.ts) are what `npm run openapi`
 * writes from the code as it is now.
 */
import { describe, expect, it } from 'vitest';
import { openApiArtifacts, staleArtifacts } from '../../api/openapi/build.ts';

describe('the committed OpenAPI artifacts', () => {
  it('match the generator (else: run npm run openapi)', { timeout: 60_000 }, async () => {
    const stale = staleArtifacts(await openApiArtifacts());
    expect(stale, `${stale.join(', ')} out of date: run npm run openapi`).toEqual([]);
  });
});
