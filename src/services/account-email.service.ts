/**
 * What the API mails to an account's address, and the tokens those mails carry: a password-reset link
 * (POST /auth/forgot-password, then /auth/reset-password) and an email-verification link (registration,
 * an email change, POST /auth/verify-email/resend, then /auth/verify-email).
 *
 * A token is 32 random bytes, stored only as its SHA-256 (models/account-token.model.ts) with its purpose
 * and the address it went to: it works once, for that purpose only, while the account keeps that address,
 * until it expires. Mail goes out after the request is answered (`inBackground`): a forgot-password answer
 * never waits for the database or the SMTP server, so it looks and takes the same whether or not an
 * account has the address, and a slow SMTP server never holds a request.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Types } from 'mongoose';
import { API_BASE_PATH, type EmailVerification } from '../config';
import type { AuthChanges } from '../lib/auth-changes';
import type { Logger } from '../lib/logger';
import type { Mailer, MailMessage, MailPurpose } from '../lib/mailer';
import { siteLinks } from '../lib/site-links';
import { AccountTokenModel, type TokenPurpose } from '../models/account-token.model';
import { ACTIVE_ACCOUNT, UserModel, type UserDocument } from '../models/user.model';
import { RESET_TOKEN_TTL_MINUTES, VERIFICATION_TOKEN_TTL_HOURS } from '../schemas/auth';

const TOKEN_BYTES = 32;
const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  'reset-password': RESET_TOKEN_TTL_MINUTES * 60_000,
  'verify-email': VERIFICATION_TOKEN_TTL_HOURS * 3_600_000,
};

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

export interface AccountEmailDeps {
  mailer: Mailer;
  /** SITE_URL: the links open the front end's pages; without it the mail carries the token and how to use it. */
  siteUrl?: string;
  /** PUBLIC_URL, for the request a mail without SITE_URL tells its reader to make. */
  publicUrl: string;
  emailVerification: EmailVerification;
  /** A verified address changes what the session check of that user finds: announced, as profile changes are. */
  authChanges: AuthChanges;
  logger: Logger;
}

/** An account a mail goes to: its id and current address. */
type Recipient = Pick<UserDocument, '_id' | 'email'>;

export function createAccountEmailService(deps: AccountEmailDeps) {
  const { mailer, siteUrl, publicUrl, emailVerification, authChanges, logger } = deps;
  const links = siteLinks(siteUrl);

  /** Work after the answer: its failures are logged (never with a token or an address), never thrown. */
  function inBackground(purpose: MailPurpose, work: () => Promise<unknown>): void {
    setImmediate(() => {
      work().catch((error: unknown) =>
        logger.warn('account mail: could not prepare the message', {
          purpose,
          reason: error instanceof Error ? error.message.split('\n')[0] : String(error),
        }),
      );
    });
  }

  async function issueToken(user: Recipient, purpose: TokenPurpose): Promise<string> {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    await AccountTokenModel.create({
      tokenHash: hashToken(token),
      purpose,
      user: user._id,
      email: user.email,
      expiresAt: new Date(Date.now() + TOKEN_TTL_MS[purpose]),
    });
    return token;
  }

  /**
   * The active account a token proves, using the token up (deleted whether or not it still holds), or
   * undefined: unknown, used, expired, of another purpose (left alone), or mailed to an address the account
   * no longer has.
   */
  async function consumeToken(token: string, purpose: TokenPurpose): Promise<UserDocument | undefined> {
    const record = await AccountTokenModel.findOneAndDelete({ tokenHash: hashToken(token), purpose });
    if (!record || record.expiresAt.getTime() <= Date.now()) return undefined;
    const user = await UserModel.findOne({ _id: record.user, email: record.email, ...ACTIVE_ACCOUNT });
    return user ?? undefined;
  }

  /**
   * Marks the address a mailed link proved as verified, if it is still the account's: one conditional
   * write, so an address changed meanwhile (unproven) is never marked. Whether it was marked now.
   */
  async function proveAddress(user: Pick<UserDocument, '_id' | 'email'>): Promise<boolean> {
    const { modifiedCount } = await UserModel.updateOne(
      { _id: user._id, email: user.email, emailVerified: false },
      { $set: { emailVerified: true } },
    );
    return modifiedCount > 0;
  }

  /** Every token of a purpose the account holds, once one of them did its work or the address changed. */
  const revokeTokens = (userId: Types.ObjectId, purpose: TokenPurpose) =>
    AccountTokenModel.deleteMany({ user: userId, purpose });

  async function mailLink(
    user: Recipient,
    purpose: TokenPurpose,
    compose: (action: Action) => Omit<MailMessage, 'to'>,
  ) {
    const token = await issueToken(user, purpose);
    const link = purpose === 'reset-password' ? links?.resetPassword(token) : links?.verifyEmail(token);
    const route = purpose === 'reset-password' ? 'reset-password' : 'verify-email';
    const action: Action = link
      ? { link, text: `Open this link:\n\n${link}` }
      : {
          text:
            `SITE_URL is not set on this server, so there is no page to open: send this token to ` +
            `POST ${publicUrl}${API_BASE_PATH}/auth/${route} as {"token": "..."${purpose === 'reset-password' ? ', "password": "<new password>"' : ''}}:\n\n${token}`,
          token,
        };
    await mailer.send({ to: user.email, ...compose(action) });
  }

  return {
    /** Whether mail can go out at all (SMTP_URL, or files in development): the routes that mail answer 503 otherwise. */
    mailIsOff: () => mailer.mode === 'off',

    verificationIsOn: () => emailVerification !== 'off',

    /**
     * Mails a reset link to the account with this address, if there is one, after the answer: the caller
     * answers the same either way.
     */
    requestPasswordReset(email: string): void {
      inBackground('reset-password', async () => {
        const user = await UserModel.findOne({ email, ...ACTIVE_ACCOUNT }, '_id email');
        if (user) await mailLink(user, 'reset-password', resetPasswordMessage);
      });
    },

    /** The account a reset token proves, its reset tokens all used up; undefined when the token does not hold. */
    async redeemResetToken(token: string): Promise<UserDocument | undefined> {
      const user = await consumeToken(token, 'reset-password');
      if (user) await revokeTokens(user._id, 'reset-password');
      return user;
    },

    /** The address a redeemed reset token was mailed to is proven, as by a verification link. */
    proveAddressOfReset: proveAddress,

    /** Mails a verification link to the account's current address, after the answer. */
    sendVerificationLink(user: Recipient): void {
      const recipient = { _id: user._id, email: user.email };
      inBackground('verify-email', () => mailLink(recipient, 'verify-email', verifyEmailMessage));
    },

    /** Marks the address a verification token proves as verified; false when the token does not hold. */
    async verifyEmail(token: string): Promise<boolean> {
      const user = await consumeToken(token, 'verify-email');
      if (!user) return false;
      await proveAddress(user);
      await revokeTokens(user._id, 'verify-email');
      await authChanges.announce(String(user._id));
      return true;
    },

    /** An email change: links mailed to the old address stop working. */
    forgetAddress: async (userId: Types.ObjectId) => {
      await AccountTokenModel.deleteMany({ user: userId });
    },
  };
}

export type AccountEmailService = ReturnType<typeof createAccountEmailService>;

/** What the reader is to do: open a link (SITE_URL set) or send a token (no front end to link to). */
interface Action {
  text: string;
  link?: string;
  token?: string;
}

/**
 * Prose wrapped at 72 columns: a plain-text part whose lines all fit in 76 is sent as 7bit, so the token
 * in a development `.eml` file reads as one line instead of quoted-printable pieces. A word longer than
 * the width (a link, a token) keeps a line of its own.
 */
function wrapped(text: string, width = 72): string {
  const wrapParagraph = (paragraph: string) =>
    paragraph
      .split(' ')
      .reduce<string[]>((lines, word) => {
        const last = lines.at(-1);
        if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
        else lines.push(word);
        return lines;
      }, [])
      .join('\n');
  return text.split('\n').map(wrapParagraph).join('\n');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function htmlOf(paragraphs: string[], action: Action): string {
  const actionHtml = action.link
    ? `<p><a href="${escapeHtml(action.link)}">${escapeHtml(action.link)}</a></p>`
    : `<p>${escapeHtml(action.text.split('\n\n')[0])}</p><pre>${escapeHtml(action.token ?? '')}</pre>`;
  const [first, ...rest] = paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`);
  return `<!doctype html><html><body>${first}${actionHtml}${rest.join('')}</body></html>`;
}

function resetPasswordMessage(action: Action): Omit<MailMessage, 'to'> {
  const intro = `Someone, hopefully you, asked to reset the password of your account. The link works once, for ${RESET_TOKEN_TTL_MINUTES} minutes, and signs you out everywhere else.`;
  const outro = 'If you did not ask, ignore this mail: your password stays as it is.';
  return {
    purpose: 'reset-password',
    subject: 'Reset your password',
    text: wrapped(`${intro}\n\n${action.text}\n\n${outro}\n`),
    html: htmlOf([intro, outro], action),
  };
}

function verifyEmailMessage(action: Action): Omit<MailMessage, 'to'> {
  const intro = `Please confirm that this address is yours. The link works once, for ${VERIFICATION_TOKEN_TTL_HOURS} hours.`;
  const outro = 'If you did not sign up or change your email, ignore this mail.';
  return {
    purpose: 'verify-email',
    subject: 'Verify your email address',
    text: wrapped(`${intro}\n\n${action.text}\n\n${outro}\n`),
    html: htmlOf([intro, outro], action),
  };
}
