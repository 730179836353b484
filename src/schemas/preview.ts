/** Preview links' fields, said once: the lifetime an admin may ask for, and the link the API answers. */
import { Type } from '@sinclair/typebox';
import type { ParamSchema } from 'express-validator';
import ms from 'ms';
import { DateTimeRef, bodyOf } from './common';

export const PREVIEW_LIFETIME = { defaultMs: 24 * 3_600_000, minMs: 5 * 60_000, maxMs: 30 * 24 * 3_600_000 } as const;

/** `expiresIn` as `ms` reads it ("2h", "3 days"), within the bounds; undefined otherwise. */
function lifetimeMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 30) return undefined;
  const millis = ms(value.trim() as ms.StringValue);
  return typeof millis === 'number' && millis >= PREVIEW_LIFETIME.minMs && millis <= PREVIEW_LIFETIME.maxMs
    ? millis
    : undefined;
}

/** POST /blogs/{blogId}/preview-link (a body is optional: the default lifetime). */
export const previewLinkBody = bodyOf({
  expiresIn: {
    schema: Type.Optional(
      Type.String({
        maxLength: 30,
        description: 'How long the link works, as "30m", "2h" or "7d": 5 minutes to 30 days; 24 hours when absent',
      }),
    ),
    rules: {
      optional: true,
      custom: {
        options: (value: unknown) => lifetimeMs(value) !== undefined,
        errorMessage: 'expiresIn must be a duration such as "2h" or "7d", from 5 minutes to 30 days',
        bail: true,
      },
      customSanitizer: { options: lifetimeMs },
    } as ParamSchema,
  },
});

export const PreviewLinkSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'The API URL that answers the draft to whoever holds it' }),
    siteUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description: "The front end's page for it (SITE_URL/preview?token=…); null when SITE_URL is unset",
    }),
    token: Type.String({ description: 'What both URLs carry' }),
    expiresAt: DateTimeRef,
  },
  { additionalProperties: false },
);

/** The token in GET /blogs/preview/{token}: two base64url parts; anything else answers the same 404. */
export const PREVIEW_TOKEN_PATTERN = '^[A-Za-z0-9_-]{1,400}\\.[A-Za-z0-9_-]{43}$';
