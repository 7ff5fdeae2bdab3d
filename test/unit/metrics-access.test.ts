import { describe, expect, it } from 'vitest';
import { metricsAllowedByAddress } from '../../api/routes/health/metrics-access.ts';
import { AllowList } from '../../lib/allow-list.ts';

const none = AllowList.empty;
const scrapers = AllowList.parse('10.1.0.0/16, fd00:1::7', { hosts: false });

describe('metricsAllowedByAddress (no METRICS_TOKEN)', () => {
  it.each(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'])('answers the loopback client %s', (peer) => {
    expect(metricsAllowedByAddress(peer, {}, none)).toBe(true);
  });

  it('answers METRICS_ALLOW addresses, and no other', () => {
    expect(metricsAllowedByAddress('10.1.2.3', {}, scrapers)).toBe(true);
    expect(metricsAllowedByAddress('::ffff:10.1.2.3', {}, scrapers)).toBe(true);
    expect(metricsAllowedByAddress('fd00:1::7', {}, scrapers)).toBe(true);
    expect(metricsAllowedByAddress('10.2.2.3', {}, scrapers)).toBe(false);
    expect(metricsAllowedByAddress('10.1.2.3', {}, none)).toBe(false);
    expect(metricsAllowedByAddress('203.0.113.9', {}, none)).toBe(false);
    expect(metricsAllowedByAddress(undefined, {}, scrapers)).toBe(false);
  });

  it.each([{ 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }, { 'x-real-ip': '10.1.2.3' }])(
    'never answers a request a proxy forwarded (%j), even from loopback',
    (headers) => {
      expect(metricsAllowedByAddress('127.0.0.1', headers, scrapers)).toBe(false);
      expect(metricsAllowedByAddress('10.1.2.3', headers, scrapers)).toBe(false);
    },
  );
});
