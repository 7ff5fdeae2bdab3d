import { describe, expect, it } from 'vitest';
import { AllowList } from '../../lib/allow-list.ts';
import { checkWebhookUrl, isUrlRefusal, type LookupAll } from '../../services/webhooks/url-guard.ts';

const none = AllowList.empty;

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
