import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AllowList } from '../../lib/allow-list.ts';
import { neverAllowedRange } from '../../services/webhooks/address-ranges.ts';
import {
  assertConnectedAddressAllowed,
  checkWebhookUrl,
  checkWebhookUrlSyntax,
  isUrlRefusal,
  safeLookup,
  WebhookAddressRefusedError,
  type LookupAll,
} from '../../services/webhooks/url-guard.ts';

// An operator's WEBHOOK_ALLOW_PRIVATE that names everything it can: every address, the metadata and
// link-local blocks themselves, and the name spaces the metadata host names live in.
const EVERYTHING = AllowList.parse(
  '0.0.0.0/0 ::/0 169.254.0.0/16 fe80::/10 fd00::/8 100.64.0.0/10 .internal .goog metadata instance-data .corp.example',
);
const CORP = AllowList.parse('10.20.0.0/16, .corp.example, siem.internal, fd12:3456::/32, 127.0.0.1');

const reason = (raw: string, allow: AllowList) => {
  const r = checkWebhookUrlSyntax(raw, allow);
  return isUrlRefusal(r) ? r.reason : 'ok';
};

describe('neverAllowedRange', () => {
  it.each([
    ['169.254.169.254', 'cloud metadata'],
    ['100.100.100.200', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['::ffff:169.254.3.4', 'link-local'],
    ['64:ff9b::a9fe:0304', 'link-local'],
  ])('%s is %s whatever the list says', (ip, range) => {
    expect(neverAllowedRange(ip)).toBe(range);
  });

  it.each(['10.0.0.1', '127.0.0.1', '100.64.0.1', 'fd12::1', '93.184.215.14', '::1'])('%s can be allow-listed', (ip) =>
    expect(neverAllowedRange(ip)).toBeNull(),
  );
});

describe('internal receivers at registration (syntax)', () => {
  it('lets the listed CIDRs, names and suffixes through, nothing else', () => {
    expect(reason('https://10.20.3.4/hook', CORP)).toBe('ok');
    expect(reason('https://10.21.3.4/hook', CORP)).toBe('private_address');
    expect(reason('https://[fd12:3456::9]/', CORP)).toBe('ok');
    expect(reason('https://siem.corp.example/', CORP)).toBe('ok');
    expect(reason('https://a.b.corp.example./', CORP)).toBe('ok');
    expect(reason('https://siem.internal/', CORP)).toBe('ok');
    expect(reason('https://other.internal/', CORP)).toBe('forbidden_host');
    expect(reason('https://127.0.0.1:8443/', CORP)).toBe('ok');
    expect(reason('https://[::1]/', CORP)).toBe('private_address');
  });

  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://169.254.170.2/',
    'https://100.100.100.200/',
    'https://168.63.129.16/',
    'https://[fd00:ec2::254]/',
    'https://[::ffff:169.254.169.254]/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://metadata.goog/',
    'https://metadata/',
    'https://instance-data/',
    'https://instance-data.ec2.internal/',
  ])('refuses %s as metadata whatever the list says', (url) => {
    expect(reason(url, EVERYTHING)).toBe('metadata');
    expect(reason(url, AllowList.empty)).toBe('metadata');
  });

  it.each(['https://169.254.1.1/', 'https://[fe80::1]/', 'https://[::ffff:169.254.3.4]/'])(
    'refuses the link-local %s whatever the list says',
    (url) => {
      expect(reason(url, EVERYTHING)).toBe('private_address');
      expect(checkWebhookUrlSyntax(url, EVERYTHING)).toMatchObject({ detail: /refused whatever the allow list says$/ });
    },
  );
});

describe('internal receivers at registration (resolved)', () => {
  const lookup: LookupAll = async (host) => {
    const table: Record<string, string[]> = {
      'siem.corp.example': ['10.20.0.5'],
      'meta.corp.example': ['10.20.0.5', '169.254.169.254'],
      'll.corp.example': ['fe80::5'],
      'siem.partner.example': ['10.20.0.9'],
    };
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  it('accepts a name listed by suffix, or one resolving into a listed CIDR', async () => {
    expect(await checkWebhookUrl('https://siem.corp.example/', CORP, lookup)).toMatchObject({
      addresses: ['10.20.0.5'],
    });
    expect(await checkWebhookUrl('https://siem.partner.example/', CORP, lookup)).toMatchObject({
      addresses: ['10.20.0.9'],
    });
    expect(await checkWebhookUrl('https://siem.partner.example/', AllowList.empty, lookup)).toMatchObject({
      reason: 'private_address',
    });
  });

  it('refuses a listed name that resolves to a metadata or link-local address', async () => {
    expect(await checkWebhookUrl('https://meta.corp.example/', EVERYTHING, lookup)).toEqual({
      reason: 'metadata',
      detail:
        'meta.corp.example resolves to 169.254.169.254, which is a cloud metadata address, refused whatever the allow list says',
    });
    expect(await checkWebhookUrl('https://ll.corp.example/', EVERYTHING, lookup)).toMatchObject({
      reason: 'private_address',
      detail:
        'll.corp.example resolves to fe80::5, which is a link-local address, refused whatever the allow list says',
    });
  });
});

describe('internal receivers at delivery', () => {
  const rebound = (address: string) => async (): Promise<LookupAddress[]> => [{ address, family: 4 }];
  const lookupWith = (address: string, allow: AllowList) =>
    new Promise<NodeJS.ErrnoException | null>((resolve) =>
      safeLookup(allow, rebound(address))('siem.corp.example', { all: true }, (err) => resolve(err)),
    );

  it('resolves a listed name to a listed or private address', async () => {
    expect(await lookupWith('10.20.0.5', CORP)).toBeNull();
  });

  it('refuses a listed name that now resolves to a metadata or link-local address', async () => {
    const err = await lookupWith('169.254.169.254', EVERYTHING);
    expect(err).toBeInstanceOf(WebhookAddressRefusedError);
    expect(err?.message).toBe('siem.corp.example resolves to 169.254.169.254, a cloud metadata address: refused');
    expect(await lookupWith('169.254.7.7', EVERYTHING)).toBeInstanceOf(WebhookAddressRefusedError);
  });

  it('refuses a metadata or link-local peer even for a host listed by name', () => {
    expect(() => assertConnectedAddressAllowed('10.20.0.5', CORP, 'siem.corp.example')).not.toThrow();
    expect(() => assertConnectedAddressAllowed('169.254.169.254', EVERYTHING, 'siem.corp.example')).toThrow(
      WebhookAddressRefusedError,
    );
    expect(() => assertConnectedAddressAllowed('::ffff:169.254.169.254', EVERYTHING, '[::ffff:a9fe:a9fe]')).toThrow(
      'a cloud metadata address',
    );
    expect(() => assertConnectedAddressAllowed('fe80::1', EVERYTHING)).toThrow('a link-local address');
  });
});
