import { describe, expect, it } from 'vitest';
import { AllowList } from '../../lib/allow-list.ts';
import { checkWebhookUrlSyntax, isUrlRefusal, type UrlRefusal } from '../../services/webhooks/url-guard.ts';

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
