import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../services/webhooks/address-ranges.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['10.1.2.3', 'private (RFC 1918)'],
    ['172.16.5.4', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['100.64.0.0', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['FE80::ABCD', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fdff:ffff::1', 'unique-local'],
    ['::ffff:127.0.0.1', 'IPv4-mapped IPv6'],
    ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped IPv6'],
    ['::8.8.8.8', 'IPv4-compatible IPv6'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.251', 'multicast'],
    ['ff05::2', 'multicast'],
    ['250.1.2.3', 'reserved'],
    ['192.0.0.170', 'IETF protocol assignment'],
    ['192.0.2.255', 'documentation'],
    ['2001:db8:1::1', 'documentation'],
    ['198.18.0.0', 'benchmarking'],
    ['64:ff9b::1.2.3.4', 'NAT64'],
    ['64:ff9b:1:ffff::1', 'NAT64'],
    ['2002::1', '6to4'],
    ['2001::1', 'Teredo'],
    ['4000::1', 'reserved'],
    ['2606:4700::1111%eth0', 'zone-scoped'],
    ['not an ip', 'invalid'],
    ['0177.0.0.1', 'invalid'],
    ['127.1', 'invalid'],
    ['', 'invalid'],
  ])('%s → %s', (ip, range) => {
    expect(classifyAddress(ip)?.range).toBe(range);
  });

  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    'fd00:ec2::254',
    'fd00:ec2:0:0:0:0:0:254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::169.254.169.254',
  ])('%s is a metadata address', (ip) => {
    expect(classifyAddress(ip)?.metadata).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.128.0.1',
    '172.15.255.255',
    '172.32.0.0',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '2001:4860:4860::8888',
  ])('%s is globally routable', (ip) => {
    expect(classifyAddress(ip)).toBeNull();
  });
});
