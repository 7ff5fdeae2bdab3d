/**
 * The legacy API's pure parts: the score mapping (> 0.65 exactly when our score blocks), the PII
 * label table, the sensitive-path summary, character counting and offsets, the query reader, the
 * configuration, and docs/errors.md listing every legacy code.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromProblem, LEGACY_CODES, LegacyError } from '../../api/legacy/errors.ts';
import { Errors } from '../../lib/errors.ts';
import { codePointOffsets, countChars } from '../../api/legacy/characters.ts';
import { readAnalysisId, readQuery } from '../../api/legacy/request.ts';
import { legacyScore, piiElement, PII_LABELS, sensitivePathElement } from '../../api/legacy/shapes.ts';
import { loadConfig } from '../../config.ts';
import { PII_REGEX_LABELS } from '../../engine/detectors/pii-regex.ts';
import type { SensitivePathMatch } from '../../engine/detectors/sensitive-path/types.ts';

describe('legacyScore', () => {
  it('maps [0, block] onto [0, 0.65] and [block, 1] onto [0.65, 1]', () => {
    expect(legacyScore(0, 0.9909)).toBe(0);
    expect(legacyScore(0.9909, 0.9909)).toBe(0.65);
    expect(legacyScore(1, 0.9909)).toBe(1);
    expect(legacyScore(0.5, 0.5)).toBe(0.65);
    expect(legacyScore(0.25, 0.5)).toBe(0.325);
    expect(legacyScore(0.75, 0.5)).toBe(0.825);
  });

  it('is above 0.65 exactly when the score is above block_above, even after rounding', () => {
    for (const block of [0.5, 0.8415, 0.9909, 0.9919, 0.999999]) {
      for (const s of [0, 0.1, block - 1e-9, block, block + 1e-12, block + 1e-6, (block + 1) / 2, 1]) {
        const mapped = legacyScore(s, block);
        expect(mapped > 0.65, `${s} at ${block}`).toBe(s > block);
        expect(mapped).toBeGreaterThanOrEqual(0);
        expect(mapped).toBeLessThanOrEqual(1);
        expect(Math.round(mapped * 10_000) / 10_000).toBe(mapped);
      }
    }
  });

  it('is monotonic, and never crosses 0.65 with a threshold that cannot be exceeded', () => {
    let last = -1;
    for (let s = 0; s <= 1; s += 0.001) {
      const m = legacyScore(s, 0.9);
      expect(m).toBeGreaterThanOrEqual(last);
      last = m;
    }
    expect(legacyScore(1, 1)).toBe(0.65);
    expect(legacyScore(0, 0)).toBe(0);
  });
});

const m = (severity: SensitivePathMatch['severity'], category = 'config_file'): SensitivePathMatch => ({
  label: category,
  text: '/etc/passwd',
  confidence: 0.9,
  source: 'rule',
  span: [0, 11],
  severity,
  os: 'linux',
  risk_reason: 'r',
  matched_pattern: 'p',
  detection_type: 'exact_path',
});

describe('element shapes', () => {
  const item = (label: string, text = 'x') => ({
    label,
    text,
    confidence: 0.9,
    source: 'regex',
    span: [0, 1] as [number, number],
  });

  it('every label our PII recognizers emit has a spec name; context-only labels are left out', () => {
    for (const label of [...PII_REGEX_LABELS, 'PERSON', 'ADDRESS']) expect(PII_LABELS[label], label).toBeDefined();
    expect(
      piiElement([item('EMAIL_ADDRESS', 'a@b.co'), item('LOCATION'), item('US_SSN', '536-22-8412'), item('NEW_ONE')]),
    ).toEqual({
      type: 'PII',
      name: 'pii',
      result: [
        { text: 'a@b.co', label: 'EMAIL' },
        { text: '536-22-8412', label: 'SSN' },
        { text: 'x', label: 'NEW_ONE' },
      ],
    });
  });

  it('summarises sensitive paths: counts by severity and a 0–100 risk score', () => {
    expect(sensitivePathElement([]).summary).toEqual({
      total_detected: 0,
      critical_count: 0,
      high_count: 0,
      medium_count: 0,
      risk_score: 0,
    });
    expect(sensitivePathElement([m('medium'), m('low')]).summary).toEqual({
      total_detected: 2,
      critical_count: 0,
      high_count: 0,
      medium_count: 1,
      risk_score: 45,
    });
    expect(sensitivePathElement([m('high')]).summary.risk_score).toBe(60);
    expect(sensitivePathElement(Array.from({ length: 9 }, () => m('critical'))).summary.risk_score).toBe(100);
    expect(sensitivePathElement([m('critical')]).result).toEqual([
      {
        path: '/etc/passwd',
        severity: 'critical',
        os: 'linux',
        risk_reason: 'r',
        matched_pattern: 'p',
        detection_type: 'exact_path',
      },
    ]);
  });

  it('rates every item of system files, SSH keys, env files and cloud credentials critical (the spec: all critical)', () => {
    for (const category of ['system_file', 'ssh_key', 'env_file', 'cloud_credentials']) {
      const element = sensitivePathElement([m('high', category), m('medium', category), m('low', category)]);
      expect(element.result.map((r) => r.severity)).toEqual(['critical', 'critical', 'critical']);
      expect(element.summary).toMatchObject({ critical_count: 3, high_count: 0, risk_score: 90 });
    }
    for (const category of ['secret_file', 'config_file', 'shell_history', 'path_traversal']) {
      expect(sensitivePathElement([m('high', category)]).result[0]!.severity).toBe('high');
    }
  });
});

describe('characters', () => {
  it('countChars counts code points and stops past the bound', () => {
    expect(countChars('')).toBe(0);
    expect(countChars('abc')).toBe(3);
    expect(countChars('😀😀')).toBe(2);
    expect(countChars('a\uD800b')).toBe(3);
    expect(countChars('a'.repeat(100), 10)).toBe(11);
  });

  it('codePointOffsets turns UTF-16 offsets into character offsets', () => {
    const text = 'a😀b😀😀c';
    const at = codePointOffsets(text);
    const expected = [0, 1, 1, 2, 3, 3, 4, 4, 5, 6];
    expect(Array.from({ length: text.length + 1 }, (_, i) => at(i))).toEqual(expected);
  });
});

describe('readQuery and readAnalysisId', () => {
  it('defaults', () => {
    const q = readQuery({});
    expect(q).toEqual({
      tag: expect.stringMatching(/^tag_/),
      detections: ['prompt_injection'],
      scanType: 'input',
      capture: true,
      long: false,
    });
    expect(readQuery({}).tag).not.toBe(q.tag);
  });

  it('detections keep the first of each name, in order; spaces around names are ignored', () => {
    expect(readQuery({ detections: 'pii, prompt_injection,pii,sensitive_path_detection' }).detections).toEqual([
      'pii',
      'prompt_injection',
      'sensitive_path_detection',
    ]);
  });

  it('refuses with the parameter named', () => {
    const fault = (q: Record<string, string | string[]>) => {
      try {
        readQuery(q);
      } catch (err) {
        return (err as LegacyError).parameter;
      }
      return null;
    };
    expect(fault({ detections: 'PII' })).toBe('detections');
    expect(fault({ capture: 'on' })).toBe('capture');
    expect(fault({ other: '1' })).toBe('other');
    expect(fault({ scan_type: ['input', 'output'] })).toBe('scan_type');
    expect(fault({ tag: '😀'.repeat(128) })).toBe('tag');
  });

  it('analysis ids: positive integers; past PostgreSQL integer, null (no such session)', () => {
    expect(readAnalysisId('1')).toBe(1);
    expect(readAnalysisId('2147483647')).toBe(2147483647);
    expect(readAnalysisId('2147483648')).toBeNull();
    expect(() => readAnalysisId('0')).toThrow(LegacyError);
  });
});

describe('configuration and catalogue', () => {
  it('the legacy listener is off by default; the quota and long-mode limit have defaults', () => {
    const c = loadConfig({});
    expect(c.LEGACY_PORT).toBeUndefined();
    expect(c.LEGACY_HOST).toBeUndefined();
    expect(c.LEGACY_MONTHLY_QUOTA).toBe(10_000);
    expect(c.LEGACY_LONG_MAX_CHARS).toBe(100_000);
    expect(loadConfig({ LEGACY_PORT: '8081', LEGACY_HOST: '127.0.0.1' })).toMatchObject({
      LEGACY_PORT: 8081,
      LEGACY_HOST: '127.0.0.1',
    });
    expect(() => loadConfig({ LEGACY_PORT: '70000' })).toThrow(/LEGACY_PORT/);
    expect(() => loadConfig({ LEGACY_MONTHLY_QUOTA: '-1' })).toThrow(/LEGACY_MONTHLY_QUOTA/);
  });

  it('every legacy status is one the spec lists, and docs/errors.md lists every legacy code', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/errors.md'), 'utf8');
    for (const [code, status] of Object.entries(LEGACY_CODES)) {
      expect([400, 401, 403, 404, 429, 500]).toContain(status);
      expect(doc).toMatch(new RegExp(`\\|\\s*${status}\\s*\\|\\s*\`${code}\``));
    }
  });
});

describe('v1 problems on the legacy listener', () => {
  const mapped = (p: Parameters<typeof fromProblem>[0]) => {
    const e = fromProblem(p);
    return e && { status: e.status, code: e.code, retryAfter: e.headers['Retry-After'], parameter: e.parameter };
  };

  it('keep only the statuses the spec lists', () => {
    expect(mapped(Errors.apiKeyExpired())).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    expect(mapped(Errors.insufficientScope('scans:write'))).toMatchObject({ status: 403, code: 'ACCESS_DENIED' });
    expect(mapped(Errors.rateLimited(7))).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: '7' });
    expect(mapped(Errors.overloaded(3))).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: '3' });
    expect(mapped(Errors.databaseUnavailable(2))).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: '2' });
    expect(mapped(Errors.scanDeadlineExceeded(5000))).toMatchObject({ status: 500, code: 'ANALYSIS_TIMEOUT' });
    expect(
      mapped(Errors.validationFailed([{ path: 'query.tag', message: 'must be percent-encoded UTF-8' }])),
    ).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', parameter: 'tag' });
    expect(mapped(Errors.internal())).toBeNull();
  });
});
