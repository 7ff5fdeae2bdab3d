import type { LookupAddress, LookupAllOptions } from 'node:dns';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowList } from '../../lib/allow-list.ts';
import { classifyAddress } from '../../services/webhooks/address-ranges.ts';
import {
  assertConnectedAddressAllowed,
  checkWebhookUrl,
  checkWebhookUrlSyntax,
  isUrlRefusal,
  safeLookup,
  WebhookAddressRefusedError,
  type LookupAll,
  type LookupAllWithOptions,
  type UrlRefusal,
} from '../../services/webhooks/url-guard.ts';

const none = AllowList.empty;

/** The refusal reason, or 'ok'. */
function syntax(raw: string, allow: AllowList = none): string {
  const r = checkWebhookUrlSyntax(raw, allow);
  return isUrlRefusal(r) ? r.reason : 'ok';
}

describe('the WHATWG URL parser normalises IPv4 and IPv6 spellings (the checks rely on it)', () => {
  it.each([
    ['https://2130706433/', '127.0.0.1'],
    ['https://0177.0.0.1/', '127.0.0.1'],
    ['https://0x7f000001/', '127.0.0.1'],
    ['https://0x7f.0.0.1/', '127.0.0.1'],
    ['https://0x7F.1/', '127.0.0.1'],
    ['https://127.1/', '127.0.0.1'],
    ['https://127.0.0.1./', '127.0.0.1'],
    ['https://%30x7f.1/', '127.0.0.1'],
    ['https://０x7f.0.0.1/', '127.0.0.1'],
    ['https://0xa9fea9fe/', '169.254.169.254'],
    ['https://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/', '[::ffff:7f00:1]'],
    ['https://[0000::1]/', '[::1]'],
    ['https://[FD00:EC2::254]/', '[fd00:ec2::254]'],
    ['https://ＬＯＣＡＬＨＯＳＴ/', 'localhost'],
  ])('%s → %s', (raw, hostname) => {
    expect(new URL(raw).hostname).toBe(hostname);
  });
});

// [url, expected reason or 'ok']
const URLS: [string, UrlRefusal['reason'] | 'ok'][] = [
  // accepted
  ['https://example.com/hooks/firewall', 'ok'],
  ['https://example.com:8443/hook', 'ok'],
  ['https://8.8.8.8/hook', 'ok'],
  ['https://[2606:4700:4700::1111]/', 'ok'],
  ['https://100.128.0.1/', 'ok'],
  ['https://100.63.255.255/', 'ok'],
  ['https://172.15.255.255/', 'ok'],
  ['https://172.32.0.0/', 'ok'],
  ['https://11.0.0.1/', 'ok'],
  ['https://192.169.0.1/', 'ok'],
  ['https://169.253.255.255/', 'ok'],
  ['https://223.255.255.255/', 'ok'],
  ['https://hooks.example.co.uk./x?y=1', 'ok'],
  ['https://internal.example.com/', 'ok'],
  // scheme, shape, credentials, length
  ['http://example.com/', 'not_https'],
  ['ftp://example.com/', 'not_https'],
  ['HTTP://example.com/', 'not_https'],
  ['javascript:alert(1)', 'not_https'],
  ['file:///etc/passwd', 'not_https'],
  ['wss://example.com/', 'not_https'],
  ['https://user:pw@example.com/', 'credentials'],
  ['https://user@example.com/', 'credentials'],
  ['https://:pw@example.com/', 'credentials'],
  ['https://8.8.8.8@127.0.0.1/', 'credentials'],
  ['', 'malformed'],
  ['not a url', 'malformed'],
  ['https://', 'malformed'],
  ['https://[fe80::1%25eth0]/', 'malformed'],
  ['https://[fe80::1%eth0]/', 'malformed'],
  ['https://256.0.0.1/', 'malformed'],
  ['https://0x100000000/', 'malformed'],
  ['https://example.com:99999/', 'malformed'],
  [' https://example.com/', 'malformed'],
  ['https://exa\tmple.com/', 'malformed'],
  ['https://example.com/\n', 'malformed'],
  ['https://.../', 'malformed'],
  // loopback in every spelling
  ['https://127.0.0.1/', 'private_address'],
  ['https://127.255.255.254/', 'private_address'],
  ['https://2130706433/', 'private_address'],
  ['https://0177.0.0.1/', 'private_address'],
  ['https://0x7f000001/', 'private_address'],
  ['https://0x7f.0.0.1/', 'private_address'],
  ['https://127.1/', 'private_address'],
  ['https://127.0.0.1.:8443/', 'private_address'],
  ['https://[::1]/', 'private_address'],
  ['https://[0:0:0:0:0:0:0:1]/', 'private_address'],
  ['https://[::ffff:7f00:1]/', 'private_address'],
  ['https://[::ffff:127.0.0.1]/', 'private_address'],
  ['https://[::ffff:8.8.8.8]/', 'private_address'],
  ['https://[::127.0.0.1]/', 'private_address'],
  // private, shared, link-local, special
  ['https://10.0.0.1/', 'private_address'],
  ['https://10.255.255.255/', 'private_address'],
  ['https://172.16.0.0/', 'private_address'],
  ['https://172.31.255.255/', 'private_address'],
  ['https://192.168.0.1/', 'private_address'],
  ['https://192.168.255.255/', 'private_address'],
  ['https://100.64.0.1/', 'private_address'],
  ['https://100.127.255.255/', 'private_address'],
  ['https://169.254.0.1/', 'private_address'],
  ['https://[fe80::1]/', 'private_address'],
  ['https://[fc00::1]/', 'private_address'],
  ['https://[fd12:3456::1]/', 'private_address'],
  ['https://0.0.0.0/', 'private_address'],
  ['https://0/', 'private_address'],
  ['https://0.1.2.3/', 'private_address'],
  ['https://[::]/', 'private_address'],
  ['https://255.255.255.255/', 'private_address'],
  ['https://224.0.0.1/', 'private_address'],
  ['https://239.255.255.250/', 'private_address'],
  ['https://[ff02::1]/', 'private_address'],
  ['https://240.0.0.1/', 'private_address'],
  ['https://192.0.0.8/', 'private_address'],
  ['https://192.0.2.1/', 'private_address'],
  ['https://198.18.0.1/', 'private_address'],
  ['https://198.19.255.255/', 'private_address'],
  ['https://198.51.100.7/', 'private_address'],
  ['https://203.0.113.9/', 'private_address'],
  ['https://[2001:db8::1]/', 'private_address'],
  ['https://[64:ff9b::808:808]/', 'private_address'],
  ['https://[64:ff9b:1::1]/', 'private_address'],
  ['https://[2002:7f00:1::]/', 'private_address'],
  ['https://[2001:0:4136:e378::1]/', 'private_address'],
  ['https://[fec0::1]/', 'private_address'],
  ['https://[100::1]/', 'private_address'],
  // metadata
  ['https://169.254.169.254/latest/meta-data/', 'metadata'],
  ['https://0xa9fea9fe/', 'metadata'],
  ['https://2852039166/', 'metadata'],
  ['https://169.254.170.2/v2/credentials', 'metadata'],
  ['https://100.100.100.200/', 'metadata'],
  ['https://[fd00:ec2::254]/', 'metadata'],
  ['https://[::ffff:169.254.169.254]/', 'metadata'],
  ['https://[64:ff9b::a9fe:a9fe]/', 'metadata'],
  ['https://metadata.google.internal/computeMetadata/v1/', 'metadata'],
  ['https://METADATA.GOOGLE.INTERNAL./', 'metadata'],
  ['https://metadata.goog/', 'metadata'],
  ['https://metadata/', 'metadata'],
  ['https://instance-data/', 'metadata'],
  ['https://instance-data.ec2.internal/', 'metadata'],
  // forbidden names
  ['https://localhost/', 'forbidden_host'],
  ['https://LOCALHOST./', 'forbidden_host'],
  ['https://localhost../', 'forbidden_host'],
  ['https://ＬＯＣＡＬＨＯＳＴ/', 'forbidden_host'],
  ['https://api.localhost/', 'forbidden_host'],
  ['https://db.internal/', 'forbidden_host'],
  ['https://printer.local/', 'forbidden_host'],
  ['https://box.localdomain/', 'forbidden_host'],
  ['https://nas.home.arpa/', 'forbidden_host'],
  ['https://intranet/', 'forbidden_host'],
  ['https:///single', 'forbidden_host'],
];

describe('checkWebhookUrlSyntax', () => {
  it.each(URLS)('%s → %s', (raw, expected) => {
    expect(syntax(raw)).toBe(expected);
  });

  it('refuses a URL longer than 2048 characters', () => {
    const base = 'https://example.com/';
    expect(syntax(base + 'a'.repeat(2048 - base.length))).toBe('ok');
    expect(checkWebhookUrlSyntax(base + 'a'.repeat(2049 - base.length), none)).toEqual({
      reason: 'too_long',
      detail: 'The URL is 2049 characters long; the limit is 2048',
    });
  });

  it('returns the URL, the host without brackets, and the IP of a literal', () => {
    const r = checkWebhookUrlSyntax('https://[2606:4700:4700::1111]:8443/x', none);
    expect(isUrlRefusal(r)).toBe(false);
    if (isUrlRefusal(r)) return;
    expect(r).toMatchObject({ host: '2606:4700:4700::1111', ip: '2606:4700:4700::1111' });
    expect(r.url.port).toBe('8443');
    expect(checkWebhookUrlSyntax('https://Example.COM/a', none)).toMatchObject({ host: 'example.com', ip: null });
  });

  it('names the address and its range in the detail', () => {
    expect(checkWebhookUrlSyntax('https://2130706433/', none)).toEqual({
      reason: 'private_address',
      detail: '127.0.0.1 is a loopback address',
    });
    expect(checkWebhookUrlSyntax('https://[::ffff:127.0.0.1]/', none)).toEqual({
      reason: 'private_address',
      detail: '::ffff:7f00:1 is an IPv4-mapped IPv6 address',
    });
    expect(checkWebhookUrlSyntax('https://172.20.0.1/', none)).toEqual({
      reason: 'private_address',
      detail: '172.20.0.1 is a private (RFC 1918) address',
    });
    expect(checkWebhookUrlSyntax('https://169.254.169.254/', none)).toEqual({
      reason: 'metadata',
      detail: '169.254.169.254 is a cloud metadata address',
    });
    expect((checkWebhookUrlSyntax('https://0.0.0.0/', none) as UrlRefusal).detail).toBe(
      '0.0.0.0 is an unspecified address',
    );
    expect((checkWebhookUrlSyntax('https://db.internal/', none) as UrlRefusal).detail).toContain('db.internal');
    expect((checkWebhookUrlSyntax('http://example.com/', none) as UrlRefusal).detail).toContain('http');
  });

  it('lets allow-listed hosts and addresses through, and nothing else', () => {
    const allow = AllowList.parse('127.0.0.1, localhost ::1 10.0.0.0/8');
    expect(syntax('https://127.0.0.1:8443/hook', allow)).toBe('ok');
    expect(syntax('https://2130706433/', allow)).toBe('ok');
    expect(syntax('https://localhost:8443/', allow)).toBe('ok');
    expect(syntax('https://LOCALHOST./', allow)).toBe('ok');
    expect(syntax('https://[::1]/', allow)).toBe('ok');
    expect(syntax('https://10.9.8.7/', allow)).toBe('ok');
    expect(syntax('https://127.0.0.2/', allow)).toBe('private_address');
    expect(syntax('https://api.localhost/', allow)).toBe('forbidden_host');
    expect(syntax('https://169.254.169.254/', allow)).toBe('metadata');
    // The allow list never relaxes the scheme or the credentials rule.
    expect(syntax('http://127.0.0.1/', allow)).toBe('not_https');
    expect(syntax('https://u:p@localhost/', allow)).toBe('credentials');
  });
});

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
  ])('refuses the bad entry %j with an error naming it', (entry) => {
    expect(() => AllowList.parse(`localhost, ${entry}`)).toThrow(entry);
  });
});

const fakeLookup =
  (table: Record<string, string[]>): LookupAll =>
  async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('checkWebhookUrl', () => {
  const lookup = fakeLookup({
    'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed.example': ['93.184.215.14', '10.0.0.5'],
    'rebind.example': ['2606:4700::1', '::ffff:127.0.0.1'],
    'meta.example': ['169.254.169.254'],
    'empty.example': [],
    'garbage.example': ['not-an-ip'],
    'receiver.test': ['127.0.0.1', '::1'],
  });

  it('accepts a host whose addresses are all public', async () => {
    const r = await checkWebhookUrl('https://public.example/hook', none, lookup);
    expect(isUrlRefusal(r)).toBe(false);
    if (isUrlRefusal(r)) return;
    expect(r.addresses).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
    expect(r.url.href).toBe('https://public.example/hook');
  });

  it('refuses a host when any address is private', async () => {
    expect(await checkWebhookUrl('https://mixed.example/', none, lookup)).toEqual({
      reason: 'private_address',
      detail: 'mixed.example resolves to 10.0.0.5, which is a private (RFC 1918) address',
    });
    expect(await checkWebhookUrl('https://rebind.example/', none, lookup)).toMatchObject({ reason: 'private_address' });
    expect(await checkWebhookUrl('https://meta.example/', none, lookup)).toMatchObject({ reason: 'metadata' });
  });

  it('refuses a host that does not resolve, or resolves to nothing usable', async () => {
    expect(await checkWebhookUrl('https://nope.example/', none, lookup)).toEqual({
      reason: 'unresolvable',
      detail: 'nope.example does not resolve (ENOTFOUND)',
    });
    expect(await checkWebhookUrl('https://empty.example/', none, lookup)).toMatchObject({ reason: 'unresolvable' });
    expect(await checkWebhookUrl('https://garbage.example/', none, lookup)).toMatchObject({ reason: 'unresolvable' });
    const throwing: LookupAll = () => Promise.reject(new Error('boom'));
    expect(await checkWebhookUrl('https://public.example/', none, throwing)).toEqual({
      reason: 'unresolvable',
      detail: 'public.example does not resolve',
    });
  });

  it('runs the syntax checks first and does not resolve IP literals', async () => {
    const never: LookupAll = () => Promise.reject(new Error('must not be called'));
    expect(await checkWebhookUrl('http://public.example/', none, never)).toMatchObject({ reason: 'not_https' });
    expect(await checkWebhookUrl('https://localhost/', none, never)).toMatchObject({ reason: 'forbidden_host' });
    expect(await checkWebhookUrl('https://0x7f000001/', none, never)).toMatchObject({ reason: 'private_address' });
    const r = await checkWebhookUrl('https://[2606:4700:4700::1111]/', none, never);
    expect(isUrlRefusal(r) ? r : r.addresses).toEqual(['2606:4700:4700::1111']);
  });

  it('accepts an allow-listed host, or a host whose private addresses are allow-listed', async () => {
    const byHost = await checkWebhookUrl('https://receiver.test:8443/hook', AllowList.parse('receiver.test'), lookup);
    expect(isUrlRefusal(byHost) ? byHost : byHost.addresses).toEqual(['127.0.0.1', '::1']);
    expect(await checkWebhookUrl('https://receiver.test/', AllowList.parse('127.0.0.1'), lookup)).toMatchObject({
      reason: 'private_address',
    });
    const byAddress = await checkWebhookUrl('https://receiver.test/', AllowList.parse('127.0.0.0/8 ::1'), lookup);
    expect(isUrlRefusal(byAddress)).toBe(false);
  });
});

type LookupResult = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function callLookup(
  lookup: ReturnType<typeof safeLookup>,
  host: string,
  options: { all?: boolean; family?: number },
): Promise<LookupResult> {
  return new Promise((resolve) => lookup(host, options, (err, address, family) => resolve({ err, address, family })));
}

describe('safeLookup', () => {
  const seen: LookupAllOptions[] = [];
  const impl: LookupAllWithOptions = async (host, options) => {
    seen.push(options);
    const table: Record<string, LookupAddress[]> = {
      'public.example': [
        { address: '2606:4700::6810:84e5', family: 6 },
        { address: '104.16.132.229', family: 4 },
      ],
      'rebind.example': [
        { address: '104.16.132.229', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
      'receiver.test': [{ address: '127.0.0.1', family: 4 }],
      'empty.example': [],
    };
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  it('answers with every address when options.all is true', async () => {
    const r = await callLookup(safeLookup(none, impl), 'public.example', { all: true });
    expect(r.err).toBeNull();
    expect(r.address).toEqual([
      { address: '2606:4700::6810:84e5', family: 6 },
      { address: '104.16.132.229', family: 4 },
    ]);
  });

  it('answers with the first address and its family otherwise, always resolving all to check them', async () => {
    seen.length = 0;
    const r = await callLookup(safeLookup(none, impl), 'public.example', { family: 0 });
    expect(r).toEqual({ err: null, address: '2606:4700::6810:84e5', family: 6 });
    expect(seen).toEqual([{ family: 0, all: true }]);
  });

  it.each([true, false])('refuses when any address is refused (all: %s)', async (all) => {
    const r = await callLookup(safeLookup(none, impl), 'rebind.example', { all });
    expect(r.err).toBeInstanceOf(WebhookAddressRefusedError);
    expect(r.err?.code).toBe('WEBHOOK_ADDRESS_REFUSED');
    expect(r.err?.message).toBe('rebind.example resolves to 169.254.169.254, a cloud metadata address: refused');
  });

  it('passes resolver errors through, and treats no address as ENOTFOUND', async () => {
    expect((await callLookup(safeLookup(none, impl), 'nope.example', {})).err?.code).toBe('ENOTFOUND');
    expect((await callLookup(safeLookup(none, impl), 'empty.example', { all: true })).err?.code).toBe('ENOTFOUND');
  });

  it('lets allow-listed hosts and addresses through', async () => {
    expect((await callLookup(safeLookup(none, impl), 'receiver.test', {})).err?.code).toBe('WEBHOOK_ADDRESS_REFUSED');
    expect(await callLookup(safeLookup(AllowList.parse('receiver.test'), impl), 'receiver.test', {})).toEqual({
      err: null,
      address: '127.0.0.1',
      family: 4,
    });
    expect(await callLookup(safeLookup(AllowList.parse('127.0.0.1'), impl), 'receiver.test', { all: true })).toEqual({
      err: null,
      address: [{ address: '127.0.0.1', family: 4 }],
      family: undefined,
    });
  });
});

describe('assertConnectedAddressAllowed', () => {
  it.each(['8.8.8.8', '2606:4700:4700::1111'])('accepts the public peer %s', (ip) => {
    expect(() => assertConnectedAddressAllowed(ip, none)).not.toThrow();
  });

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.0.0.1', '169.254.169.254', 'fe80::1%eth0', '', undefined])(
    'refuses the peer %j',
    (ip) => {
      let thrown: unknown;
      try {
        assertConnectedAddressAllowed(ip, none);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(WebhookAddressRefusedError);
      expect((thrown as WebhookAddressRefusedError).code).toBe('WEBHOOK_ADDRESS_REFUSED');
    },
  );

  it('names the address and range in the message', () => {
    expect(() => assertConnectedAddressAllowed('10.0.0.1', none)).toThrow(
      '10.0.0.1, a private (RFC 1918) address: refused',
    );
  });

  it('accepts an allow-listed peer, or any peer of an allow-listed host name', () => {
    expect(() => assertConnectedAddressAllowed('127.0.0.1', AllowList.parse('127.0.0.1'))).not.toThrow();
    expect(() =>
      assertConnectedAddressAllowed('127.0.0.1', AllowList.parse('receiver.test'), 'receiver.test'),
    ).not.toThrow();
    expect(() => assertConnectedAddressAllowed('127.0.0.1', AllowList.parse('receiver.test'), 'other.test')).toThrow(
      'other.test resolves to 127.0.0.1, a loopback address: refused',
    );
    expect(() => assertConnectedAddressAllowed('127.0.0.2', AllowList.parse('127.0.0.1'))).toThrow(
      WebhookAddressRefusedError,
    );
  });
});

describe("with node's own net.connect (a local TCP receiver)", () => {
  let server: net.Server;
  let port = 0;
  beforeAll(async () => {
    server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const impl: LookupAllWithOptions = async () => [{ address: '127.0.0.1', family: 4 }];

  /** Connects the way an https.request would, checking the peer on 'connect'; resolves 'connected' or the error code. */
  function connect(host: string, allow: AllowList, autoSelectFamily: boolean): Promise<string> {
    return new Promise((resolve) => {
      const socket = net.connect({ host, port, lookup: safeLookup(allow, impl), autoSelectFamily });
      socket.on('connect', () => {
        try {
          assertConnectedAddressAllowed(socket.remoteAddress, allow, host);
          resolve('connected');
        } catch (err) {
          resolve((err as NodeJS.ErrnoException).code ?? 'error');
        }
        socket.destroy();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
  }

  it.each([true, false])(
    'connects to an allow-listed host and refuses it otherwise (autoSelectFamily: %s)',
    async (autoSelectFamily) => {
      expect(await connect('receiver.test', AllowList.parse('receiver.test'), autoSelectFamily)).toBe('connected');
      expect(await connect('receiver.test', AllowList.parse('127.0.0.1'), autoSelectFamily)).toBe('connected');
      expect(await connect('receiver.test', none, autoSelectFamily)).toBe('WEBHOOK_ADDRESS_REFUSED');
    },
  );

  it('catches an IP literal, for which node skips lookup, on connect', async () => {
    expect(await connect('127.0.0.1', none, true)).toBe('WEBHOOK_ADDRESS_REFUSED');
    expect(await connect('127.0.0.1', AllowList.parse('127.0.0.1'), true)).toBe('connected');
  });
});
