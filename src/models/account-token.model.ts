/**
 * A token mailed to prove a mailbox: to reset a password or to verify an email address. Only its SHA-256
 * is stored (a database leak hands out no working link), with its purpose and the address it was mailed
 * to, so a token works once, for its own purpose, while the account still has that address, and until
 * `expiresAt`. Using it deletes it (services/account-token.service.ts).
 */
import { Schema, model, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';

export const TOKEN_PURPOSES = ['reset-password', 'verify-email'] as const;
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];

const accountTokenSchema = new Schema(
  {
    // unique: the token is found by its hash (and two equal random tokens are refused, never mixed up)
    tokenHash: { type: String, required: true, unique: true },
    purpose: { type: String, enum: TOKEN_PURPOSES, required: true },
    // index: a new link, a reset or an email change removes the account's earlier tokens of a purpose
    user: { type: Schema.Types.ObjectId, ref: 'User', required: true, index: true },
    email: { type: String, required: true },
    // TTL index: MongoDB purges expired tokens eventually; the code checks expiry on every use
    expiresAt: { type: Date, required: true, index: { expireAfterSeconds: 0 } },
  },
  { timestamps: { createdAt: true, updatedAt: false } },
);

export type AccountToken = InferSchemaType<typeof accountTokenSchema>;
accountTokenSchema.plugin(readDeadline);
export const AccountTokenModel = model('AccountToken', accountTokenSchema);
