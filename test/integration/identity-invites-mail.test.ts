/**
 * The optional invite email (SMTP_URL): a real SMTP server (smtp-server) on loopback receives it
 * after the invite is committed; the API answer is the same as without SMTP, and a failed send is
 * only a warning in the log, which never holds the accept URL or its token.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/harness.ts';
import { app, signUp, useIdentityApp } from './identity-fixture.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onRcptTo(address, _session, done) {
    if (address.address.startsWith('slow')) return void setTimeout(() => done(), 1_500);
    done(
      address.address.startsWith('bounce') ? Object.assign(new Error('no such mailbox'), { responseCode: 550 }) : null,
    );
  },
  onData(stream, session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      done();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = (smtp.server.address() as AddressInfo).port;
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

const logLines: string[] = [];
useIdentityApp({
  env: {
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    SMTP_FROM: 'Firewall <invites@firewall.test>',
    PUBLIC_URL: 'https://console.firewall.test',
    LOG_LEVEL: 'warn',
  },
  logLines,
});

/** The message's text with quoted-printable soft breaks and escapes undone (a long URL may be wrapped). */
function bodyText(raw: string): string {
  const unfolded = raw.replace(/=\r?\n/g, '');
  return /content-transfer-encoding:\s*quoted-printable/i.test(raw)
    ? unfolded.replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    : raw;
}

async function waitFor<T>(what: string, probe: () => T | undefined, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('invite email', () => {
  it('sends the accept URL to the invitee after the create; the answer is the one without SMTP', async () => {
    const owner = await signUp('Mail Org');
    const r = await call(app, 'POST', '/v1/invites', {
      key: owner.token,
      json: { email: 'mailed@example.com', role: 'admin' },
    });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['accept_url', 'invite']);
    expect(Object.keys(r.body.invite).sort()).toEqual(['created_at', 'email', 'expires_at', 'id', 'role']);
    expect(r.body.accept_url).toMatch(
      /^https:\/\/console\.firewall\.test\/dashboard\/invites\/accept#token=[A-Za-z0-9_-]{43}$/,
    );

    const mail = await waitFor('the invite email', () => received.find((m) => m.to.includes('mailed@example.com')));
    expect(mail.to).toEqual(['mailed@example.com']);
    expect(mail.from).toBe('invites@firewall.test');
    const text = bodyText(mail.raw);
    expect(text).toContain(r.body.accept_url);
    expect(text).toContain('Mail Org');
    expect(text).toMatch(/as admin/);
  });

  it('the answer does not wait for the mail server', async () => {
    const owner = await signUp();
    const started = Date.now();
    const r = await call(app, 'POST', '/v1/invites', {
      key: owner.token,
      json: { email: 'slow@example.com', role: 'member' },
    });
    expect(r.status, r.text).toBe(201);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(received.some((m) => m.to.includes('slow@example.com'))).toBe(false);
    const mail = await waitFor('the slow email', () => received.find((m) => m.to.includes('slow@example.com')));
    expect(bodyText(mail.raw)).toContain(r.body.accept_url);
  });

  it('a failed send changes nothing in the answer and logs a warning without the token', async () => {
    const owner = await signUp();
    const r = await call(app, 'POST', '/v1/invites', {
      key: owner.token,
      json: { email: 'bounce@example.com', role: 'member' },
    });
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['accept_url', 'invite']);
    const token = /#token=(.+)$/.exec(r.body.accept_url as string)![1]!;
    const warning = await waitFor('the warning', () =>
      logLines.find((l) => l.includes('invite email could not be sent')),
    );
    expect(JSON.parse(warning)).toMatchObject({ invite_id: r.body.invite.id, org_id: owner.orgId });
    expect(logLines.join('\n')).not.toContain(token);
    expect(received.some((m) => m.to.includes('bounce@example.com'))).toBe(false);
    // the invite stands
    const list = await call(app, 'GET', '/v1/invites', { key: owner.token });
    expect(list.body.data).toEqual([r.body.invite]);
  });
});
