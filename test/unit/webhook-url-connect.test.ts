import type { LookupAddress, LookupAllOptions } from 'node:dns';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllowList } from '../../lib/allow-list.ts';
import {
  assertConnectedAddressAllowed,
  safeLookup,
  WebhookAddressRefusedError,
  type LookupAllWithOptions,
} from '../../services/webhooks/url-guard.ts';

const none = AllowList.empty;

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
