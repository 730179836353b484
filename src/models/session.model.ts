/**
 * A login session: one per successful register or login, holding the SHA-256 of its refresh token
 * (never the token itself). Access tokens name their session (`sid`), so deleting a session ends
 * both tokens at once: logout, password change and account deletion rely on that.
 */
import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';
import { USER_AGENT_MAX_LENGTH } from '../schemas/session';

const sessionSchema = new Schema(
  {
    // index: account deletion and password change remove a user's sessions
    user: { type: Schema.Types.ObjectId, ref: 'User', required: true, index: true },
    tokenHash: { type: String, required: true },
    // TTL index: MongoDB purges expired sessions eventually; the code still checks expiry on every use,
    // since the purge runs only once a minute (and the offline stand-in does not run it at all)
    expiresAt: { type: Date, required: true, index: { expireAfterSeconds: 0 } },
    // What its owner sees of it (GET /auth/sessions, src/schemas/session.ts); absent on sessions opened before
    userAgent: { type: String, maxlength: USER_AGENT_MAX_LENGTH },
    ip: String,
    lastUsedAt: Date,
  },
  { timestamps: { createdAt: true, updatedAt: false } },
);

export type Session = InferSchemaType<typeof sessionSchema>;
export type SessionDocument = HydratedDocument<Session>;
sessionSchema.plugin(readDeadline);
export const SessionModel = model('Session', sessionSchema);
