/**
 * A sign-in session as its owner sees it (GET /auth/sessions): when it began and was last used, and the
 * browser and address it began from. Sessions opened before these were recorded show them as null.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { DateTimeRef, ObjectIdRef, componentRef } from './common';

/** At most this many sessions are listed, the most recent first; older ones still work and still end with the others. */
export const SESSIONS_LISTED = 100;
/** The user agent is kept to this many characters. */
export const USER_AGENT_MAX_LENGTH = 200;
/** lastUsedAt moves at most this often per session, so that reads do not each cost a write. */
export const LAST_USED_PRECISION_MS = 60_000;

const nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const SessionSchema = Type.Object(
  {
    _id: ObjectIdRef,
    createdAt: DateTimeRef,
    lastUsedAt: nullable(
      DateTimeRef,
      `When its access or refresh token was last used, to within ${LAST_USED_PRECISION_MS / 1000} seconds; null for sessions older than this field`,
    ),
    userAgent: nullable(
      Type.String({ maxLength: USER_AGENT_MAX_LENGTH }),
      `The User-Agent header at login or register, cut to ${USER_AGENT_MAX_LENGTH} characters; null when not sent or not recorded`,
    ),
    ip: nullable(
      Type.String(),
      'The client address at login or register (behind a proxy: as TRUST_PROXY says); null when not recorded',
    ),
    current: Type.Boolean({ description: 'Whether this is the session of the access token that asked' }),
  },
  { additionalProperties: false },
);
export type SessionView = Static<typeof SessionSchema>;

export const SessionListSchema = Type.Object(
  {
    sessions: Type.Array(componentRef('Session', SessionSchema), {
      maxItems: SESSIONS_LISTED,
      description: `The live sessions, newest first; at most the ${SESSIONS_LISTED} most recent`,
    }),
  },
  { additionalProperties: false },
);
