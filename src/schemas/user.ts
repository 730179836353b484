/**
 * A user's fields, said once: roles, social networks and bounds (read by the model), the User and
 * PublicUser views the API shows, and the profile update's fields with their rules.
 */
import { Type, type Static, type TOptional, type TSchema, type TString } from '@sinclair/typebox';
import type { ParamSchema, Schema } from 'express-validator';
import {
  DateTimeRef,
  ObjectIdRef,
  type Field,
  bodyOf,
  componentRef,
  lengthMessage,
  optional,
  pageOf,
  stringEnum,
  stringField,
  textField,
} from './common';

export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];

export const SOCIAL_NETWORKS = ['website', 'facebook', 'instagram', 'linkedin', 'x', 'youtube'] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

export const USER_LIMITS = { username: 20, email: 50, name: 20, socialLink: 100 } as const;

/** Usernames appear in URLs and mentions: letters, digits, ".", "_" and "-". */
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]+$/;

// ---- the views --------------------------------------------------------------------------------------

export const SocialLinksSchema = Type.Object(
  Object.fromEntries(
    SOCIAL_NETWORKS.map((network) => [network, Type.Optional(Type.String({ maxLength: USER_LIMITS.socialLink }))]),
  ) as Record<SocialNetwork, TOptional<TString>>,
  {
    description: 'Links the user chose to show; absent networks are not set ({} when none)',
    additionalProperties: false,
  },
);

/** Names are shown to readers as they were typed: say so where clients look (see docs/security.md). */
const PLAIN_TEXT_NAME = 'Plain text, returned exactly as sent; render it as text, never as HTML.';
const name = Type.String({ maxLength: USER_LIMITS.name, description: `Absent when not set. ${PLAIN_TEXT_NAME}` });

export const UserSchema = Type.Object(
  {
    _id: ObjectIdRef,
    username: Type.String({
      minLength: 1,
      maxLength: USER_LIMITS.username,
      description: 'Unique whatever its case ("Ada" and "ada" cannot both exist); shown in the case its owner chose',
    }),
    email: Type.String({ format: 'email', maxLength: USER_LIMITS.email }),
    emailVerified: Type.Optional(
      Type.Boolean({
        description:
          'Whether the owner proved the address by its mailed link (POST /auth/verify-email). Present once email verification ' +
          'applies to the account (EMAIL_VERIFICATION on when it registered or changed its email, or a link was asked for); ' +
          'a changed email is unverified again',
      }),
    ),
    role: stringEnum(ROLES),
    firstName: Type.Optional(name),
    lastName: Type.Optional(name),
    socialLinks: componentRef('SocialLinks', SocialLinksSchema),
    createdAt: DateTimeRef,
    updatedAt: DateTimeRef,
  },
  {
    description: 'A user account as its owner and admins see it. The password is never returned.',
    additionalProperties: false,
  },
);
export type UserView = Static<typeof UserSchema>;

export const PublicUserSchema = Type.Omit(UserSchema, ['email', 'emailVerified'], {
  description: 'A user as other, non-admin users see it (author of blogs and comments): a User without email.',
  additionalProperties: false,
});
export type PublicUserView = Static<typeof PublicUserSchema>;

/**
 * A blog card's author: who wrote it, by the name a card shows ("by Ada Lovelace"), for every viewer; the
 * profile (username, names apart, links) is a GET /users/{userId} away.
 */
export const AuthorCardSchema = Type.Object(
  {
    _id: PublicUserSchema.properties._id,
    name: Type.String({ description: 'The first and last names, those given, joined by a space; else the username' }),
  },
  {
    description: "A card's author: the PublicUser's id and display name, the same for every viewer",
    additionalProperties: false,
  },
);
export type AuthorCardView = Static<typeof AuthorCardSchema>;

/**
 * The author of a blog or comment: the full User for admin viewers, a PublicUser for everyone else
 * (null, which the document does not promise, only for an author deleted a moment ago whose blogs and comments are going too).
 */
export const AuthorRef = Type.Unsafe<UserView | PublicUserView | null>({
  description: 'The full User for admin viewers; a PublicUser (no email) for everyone else',
  anyOf: [componentRef('User', UserSchema), componentRef('PublicUser', PublicUserSchema)],
});

export const UserResponseSchema = Type.Object(
  { user: componentRef('User', UserSchema) },
  { additionalProperties: false },
);
export const UserPageSchema = pageOf('users', componentRef('User', UserSchema));

// ---- the fields of a user's requests (sign-up, sign-in, profile update) -----------------------------

/** bcrypt reads at most 72 bytes; longer passwords are refused instead of silently truncated. */
export const PASSWORD_LIMITS = { min: 8, maxBytes: 72 } as const;

/**
 * An address in the one form an account is stored and found by, so that one mailbox is one account: lower-
 * cased, in Unicode's composed form (an "ü" typed as "u" and a combining mark is the "ü" typed as one). A
 * domain is kept as written: its ASCII (`xn--`) form can be longer than the 50 characters an address may
 * have, and an account stored under either form must still sign in by it.
 */
export const canonicalEmail = (email: string): string => email.normalize('NFC').toLowerCase();

const EMAIL_LENGTH_MESSAGE = lengthMessage('Email', { maxLength: USER_LIMITS.email });

export const emailField = textField(
  'Email',
  { format: 'email', maxLength: USER_LIMITS.email, description: 'Stored lower-cased, in Unicode composed form' },
  {
    bail: true,
    then: {
      isEmail: { errorMessage: 'Email must be a valid email address', bail: true },
      customSanitizer: { options: (value: string) => canonicalEmail(value) },
      // the bound holds for the form stored, which composing can (rarely) lengthen
      custom: { options: (value: string) => value.length <= USER_LIMITS.email, errorMessage: EMAIL_LENGTH_MESSAGE },
    },
  },
);

/** A password: untrimmed, at least 8 characters and at most 72 UTF-8 bytes; `note` adds to its description. */
export const passwordField = (note = '') =>
  stringField(
    'Password',
    Type.String({
      minLength: PASSWORD_LIMITS.min,
      maxLength: PASSWORD_LIMITS.maxBytes,
      description: `${PASSWORD_LIMITS.min} characters to ${PASSWORD_LIMITS.maxBytes} UTF-8 bytes (bcrypt reads no more); write-only${note}`,
    }),
    {
      isLength: {
        options: { min: PASSWORD_LIMITS.min },
        errorMessage: `Password must be at least ${PASSWORD_LIMITS.min} characters`,
        bail: true,
      },
      custom: {
        options: (value: string) => Buffer.byteLength(value, 'utf8') <= PASSWORD_LIMITS.maxBytes,
        errorMessage: `Password must be at most ${PASSWORD_LIMITS.maxBytes} bytes`,
      },
    },
    { trim: false },
  );

// ---- the profile update (PUT /users/current) ------------------------------------------------------

const nameField = (label: string) =>
  optional(
    textField(label, {
      maxLength: USER_LIMITS.name,
      description: `${label}; "" removes it. Plain text, returned exactly as sent: render it as text, never as HTML.`,
    }),
  );

/** A social link: an http(s) URL of at most 100 characters, or "" to remove it. */
const socialLinkField = (network: string) =>
  optional(
    stringField(
      `${network} link`,
      Type.Unsafe<string>({
        description: 'An http(s) URL, or "" to remove the link',
        anyOf: [
          { type: 'string', const: '' },
          { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: USER_LIMITS.socialLink },
        ],
      }),
      {
        isLength: {
          options: { max: USER_LIMITS.socialLink },
          errorMessage: `${network} link must be at most ${USER_LIMITS.socialLink} characters`,
          bail: true,
        },
        isURL: {
          if: (value: string) => value !== '',
          options: { protocols: ['http', 'https'], require_protocol: true },
          errorMessage: `${network} link must be a valid http(s) URL`,
        },
      },
    ),
  );

/**
 * `confirm_password`, beside `password` wherever a password is set (sign-up, profile update): optional,
 * and when sent it must equal `password` (what sign-up and settings forms send).
 */
export const confirmPasswordField = optional(
  stringField(
    'Password confirmation',
    Type.String({ description: 'Optional; when sent, must equal `password` (400 otherwise). Write-only' }),
    {
      custom: {
        options: (value: string, { req }: { req: { body?: Record<string, unknown> } }) => value === req.body?.password,
        errorMessage: 'Password confirmation does not match the password',
      },
    },
    { trim: false },
  ),
);

/** An alias (a response's name) must agree with its request name when both are sent. */
const agreesWith = (requestName: string, label: string): ParamSchema => ({
  custom: {
    options: (value: string, { req }: { req: { body?: Record<string, unknown> } }) =>
      req.body?.[requestName] === undefined || req.body[requestName] === value,
    errorMessage: `${label} and ${requestName} disagree: send one of them`,
  },
});

const aliasOf = (requestName: string, field: Field<TOptional<TSchema>>, label: string): Field<TOptional<TSchema>> => ({
  schema: Type.Optional(
    Type.Unsafe({ ...field.schema, description: `Alias of \`${requestName}\` (the name responses use)` }),
  ),
  rules: { ...field.rules, ...agreesWith(requestName, label) },
});

const socialLinksAlias: Field = {
  schema: Type.Optional(
    Type.Object(
      Object.fromEntries(
        SOCIAL_NETWORKS.map((network) => [network, socialLinkField(network).schema as TOptional<TSchema>]),
      ),
      {
        description: 'Alias of the flat link fields, as responses nest them: `{"website": "https://..."}`',
        additionalProperties: false,
      },
    ),
  ),
  rules: {
    optional: true,
    custom: {
      options: (value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).every((key) => (SOCIAL_NETWORKS as readonly string[]).includes(key)),
      errorMessage: `socialLinks must be an object with only these fields: ${SOCIAL_NETWORKS.join(', ')}`,
    },
  },
};

/** The rules of the links nested in `socialLinks`, checked like the flat ones and compared with them. */
export const socialLinksAliasRules: Schema = Object.fromEntries(
  SOCIAL_NETWORKS.map((network) => [
    `socialLinks.${network}`,
    { ...socialLinkField(network).rules, ...agreesWith(network, `socialLinks.${network}`) },
  ]),
);

/**
 * Every field optional. Read-only fields (`role`, `_id`) and any other field are refused, not ignored.
 * The response's names (`firstName`, `lastName`, `socialLinks`) are accepted as aliases.
 */
export const profileUpdateBody = bodyOf(
  {
    username: optional(
      textField(
        'Username',
        {
          minLength: 1,
          maxLength: USER_LIMITS.username,
          pattern: USERNAME_PATTERN.source,
          description: 'Unique whatever its case: "ADMIN" is refused (400) when "admin" exists; kept in the case given',
        },
        {
          bail: true,
          then: {
            matches: {
              options: USERNAME_PATTERN,
              errorMessage: 'Username may contain only letters, digits, ".", "_" and "-"',
            },
          },
        },
      ),
    ),
    email: optional(emailField),
    password: optional(passwordField("; ends the user's other sessions")),
    confirm_password: confirmPasswordField,
    current_password: optional(
      stringField(
        'Current password',
        Type.String({
          description:
            "Optional; when sent, must be the account's password (400 otherwise). Required to change `password` or `email` " +
            'when the operator sets REQUIRE_CURRENT_PASSWORD. Write-only',
        }),
        {},
        { trim: false },
      ),
    ),
    first_name: nameField('First name'),
    last_name: nameField('Last name'),
    ...(Object.fromEntries(SOCIAL_NETWORKS.map((network) => [network, socialLinkField(network)])) as Record<
      SocialNetwork,
      ReturnType<typeof socialLinkField>
    >),
    firstName: aliasOf('first_name', nameField('First name'), 'firstName'),
    lastName: aliasOf('last_name', nameField('Last name'), 'lastName'),
    socialLinks: socialLinksAlias,
  },
  {
    description:
      "Every field optional. Names arrive snake_case and links flat; the response's names (`firstName`, `lastName`, " +
      '`socialLinks: {...}`) are accepted as aliases, refused (400) when they disagree with the request names. Any other ' +
      'field (`role`, `_id`, ...) is refused with 400 ValidationError naming it.',
  },
);

/** The update as the service reads it: request names only, aliases folded in (they agree when both are sent). */
export type ProfileUpdate = Partial<
  Record<'username' | 'email' | 'password' | 'first_name' | 'last_name' | SocialNetwork, string>
>;
export function profileUpdateOf(
  matched: ProfileUpdate & {
    firstName?: string;
    lastName?: string;
    socialLinks?: Partial<Record<SocialNetwork, string>>;
  },
): ProfileUpdate {
  const update: ProfileUpdate = {};
  for (const key of ['username', 'email', 'password', 'first_name', 'last_name', ...SOCIAL_NETWORKS] as const) {
    if (matched[key] !== undefined) update[key] = matched[key];
  }
  update.first_name ??= matched.firstName;
  update.last_name ??= matched.lastName;
  for (const network of SOCIAL_NETWORKS) update[network] ??= matched.socialLinks?.[network];
  for (const key of Object.keys(update) as Array<keyof ProfileUpdate>)
    if (update[key] === undefined) delete update[key];
  return update;
}
