import { describe, expect, it } from 'vitest';
import { AllowList } from '../../lib/allow-list.ts';

describe('AllowList', () => {
  it('parses host names, addresses and CIDRs separated by commas or spaces', () => {
    const allow = AllowList.parse(' 127.0.0.1, localhost\n10.0.0.0/8 ::1,[fd00::]/8 Receiver.Test. ');
    expect(allow.size).toBe(6);
    expect(allow.allowsHost('localhost')).toBe(true);
    expect(allow.allowsHost('LocalHost.')).toBe(true);
    expect(allow.allowsHost('receiver.test')).toBe(true);
    expect(allow.allowsHost('[::1]')).toBe(true);
    expect(allow.allowsHost('other.test')).toBe(false);
    expect(allow.allowsAddress('127.0.0.1')).toBe(true);
    expect(allow.allowsAddress('127.0.0.2')).toBe(false);
    expect(allow.allowsAddress('10.200.0.1')).toBe(true);
    expect(allow.allowsAddress('11.0.0.1')).toBe(false);
    expect(allow.allowsAddress('0:0:0:0:0:0:0:1')).toBe(true);
    expect(allow.allowsAddress('fdab::1')).toBe(true);
    expect(allow.allowsAddress('localhost')).toBe(false);
  });

  it('matches a host suffix (leading dot) against names under it, not the suffix itself', () => {
    const allow = AllowList.parse('.corp.example, siem.internal');
    expect(allow.allowsHost('siem.corp.example')).toBe(true);
    expect(allow.allowsHost('A.B.Corp.Example.')).toBe(true);
    expect(allow.allowsHost('corp.example')).toBe(false);
    expect(allow.allowsHost('evilcorp.example')).toBe(false);
    expect(allow.allowsHost('siem.internal')).toBe(true);
    expect(allow.allowsHost('x.siem.internal')).toBe(false);
    expect(allow.allowsAddress('10.0.0.1')).toBe(false);
  });

  it('holds addresses and CIDRs only when told to (METRICS_ALLOW)', () => {
    const allow = AllowList.parse('10.0.0.0/8 ::1', { hosts: false });
    expect(allow.allowsAddress('10.1.1.1')).toBe(true);
    expect(() => AllowList.parse('10.0.0.0/8 scraper.internal', { hosts: false })).toThrow('scraper.internal');
    expect(() => AllowList.parse('.corp.example', { hosts: false })).toThrow('.corp.example');
  });

  it('is empty by default and for an empty configuration', () => {
    for (const allow of [AllowList.empty, AllowList.parse(''), AllowList.parse(undefined), AllowList.parse(' , ')]) {
      expect(allow.size).toBe(0);
      expect(allow.allowsHost('localhost')).toBe(false);
      expect(allow.allowsAddress('127.0.0.1')).toBe(false);
    }
  });

  it.each([
    '10.0.0.0/33',
    '::1/129',
    '10.0.0.0/',
    '10.0.0.0/x',
    'localhost/8',
    '*.example.com',
    'http://localhost',
    '0177.0.0.1',
    '2130706433',
    'fe80::1%eth0',
    'a..b',
    '.',
    '..corp.example',
  ])('refuses the bad entry %j with an error naming it', (entry) => {
    expect(() => AllowList.parse(`localhost, ${entry}`)).toThrow(entry);
  });
});
