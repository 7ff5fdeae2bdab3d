/**
 * Optional invite email over SMTP (nodemailer), when SMTP_URL is configured. Sending happens after the
 * invite is committed and never changes the API answer: a failure is logged (without the URL, which
 * carries the one-time token) and the inviter still holds the accept URL from the create response.
 */
import nodemailer from 'nodemailer';

export interface InviteMail {
  to: string;
  organization: string;
  role: string;
  acceptUrl: string;
  expiresAt: Date;
}

export interface InviteMailer {
  send(mail: InviteMail): Promise<void>;
  close(): void;
}

export function createInviteMailer(smtpUrl: string, from: string, timeoutMs = 10_000): InviteMailer {
  const transport = nodemailer.createTransport(
    { url: smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs },
    { from },
  );
  return {
    async send(mail) {
      const text = [
        `You have been invited to join ${mail.organization} as ${mail.role}.`,
        '',
        `Accept the invite: ${mail.acceptUrl}`,
        '',
        `The link works once and expires at ${mail.expiresAt.toISOString()}. If you did not expect it, ignore this email.`,
      ].join('\n');
      await transport.sendMail({ to: mail.to, subject: `Invitation to ${mail.organization}`, text });
    },
    close: () => transport.close(),
  };
}
