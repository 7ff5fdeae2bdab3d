/**
 * docs/operators/configuration.md is what `npm run config:docs` generates from config.ts: every variable of
 * the schema, its default and accepted values, and its description. Adding, removing or changing a
 * variable without regenerating fails here.
 */
import { describe, expect, it } from 'vitest';
import { CONFIG_DESCRIPTIONS, configSchema } from '../../config.ts';
import {
  CONFIG_REFERENCE_PATH,
  committedConfigReference,
  configVariables,
  renderConfigReference,
} from '../../server/config-reference.ts';

describe('configuration reference', () => {
  it(`${CONFIG_REFERENCE_PATH} matches the generator (else: run npm run config:docs)`, () => {
    expect(committedConfigReference(), `${CONFIG_REFERENCE_PATH} is stale: run npm run config:docs`).toBe(
      renderConfigReference(),
    );
  });

  it('describes every variable of the schema, and only those', () => {
    expect(Object.keys(CONFIG_DESCRIPTIONS).sort()).toEqual(Object.keys(configSchema.shape).sort());
    expect(configVariables().map((v) => v.name)).toEqual(Object.keys(configSchema.shape));
  });

  it('states defaults as an operator writes them, the same on every machine', () => {
    const byName = new Map(configVariables().map((v) => [v.name, v]));
    expect(byName.get('PORT')).toMatchObject({ default: '`8080`', type: 'integer, 0 to 65535' });
    expect(byName.get('TRUST_PROXY')).toMatchObject({ default: '`false`', type: expect.stringMatching(/^boolean/) });
    expect(byName.get('DATABASE_URL')).toMatchObject({ default: 'unset', type: 'URL' });
    expect(byName.get('LOG_LEVEL')?.type).toContain('`silent`');
    // Computed from the machine (availableParallelism): stated in words, or the file would differ per host.
    expect(byName.get('WORKER_THREADS')?.default).toMatch(/CPU count/);
  });

  it('escapes table separators inside a cell', () => {
    const md = renderConfigReference([{ name: 'X', type: 'a | b', default: 'unset', description: 'one | two' }]);
    expect(md).toContain('| `X` | unset | a \\| b | one \\| two |');
  });
});
