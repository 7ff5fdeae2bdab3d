import { readFileSync } from 'node:fs';
import { getCreateIndexesSQL, getCreateTableSQL, getUpdateTimestampTriggerSQL } from '@agendajs/postgres-backend';
import { describe, expect, it } from 'vitest';

// Migration 0005 copies the backend's DDL (it runs with ensureSchema: false); this fails when an
// upgrade of @agendajs/postgres-backend changes that DDL, so a new migration follows it.
const squash = (sql: string) =>
  sql
    .replace(/--[^\n]*/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\( /g, '(')
    .replace(/ \)/g, ')')
    .trim();
const migration = squash(readFileSync(new URL('../../store/migrations/0005_jobs.sql', import.meta.url), 'utf8'));

describe('0005_jobs.sql', () => {
  it.each([
    getCreateTableSQL('agenda_jobs'),
    ...getCreateIndexesSQL('agenda_jobs'),
    getUpdateTimestampTriggerSQL('agenda_jobs'),
  ])('holds the backend DDL %#', (sql) => {
    expect(migration).toContain(squash(sql));
  });
});
