// The one request-scoped channel: what handlers hand along a request travels in Express's own
// `res.locals`, typed here once. Read it through lib/request-locals.ts, whose accessors insist on
// what a handler needs (a missing user is a 401, a missing loader a programming error).
import type { Types } from 'mongoose';
import type { CommentDocument } from '../models/comment.model';
import type { UserDocument } from '../models/user.model';
import type { InspectedBanner } from '../services/banner-image';

declare global {
  namespace Express {
    interface Locals {
      /** The signed-in user, set by authenticate(). */
      user?: UserDocument;
      /** The session the access token belongs to, set by authenticate(). */
      sessionId?: Types.ObjectId;
      /**
       * Set by authenticate() when user and session come from a check kept from an earlier request: asks
       * the database again and replaces them (authorize() does, before it refuses for want of a right).
       */
      checkSessionAgain?: () => Promise<void>;
      /** The uploaded banner once the blog validators proved it an image and re-encoded it. */
      banner?: InspectedBanner;
      /** The comment named in the path, set by the comment controller's loadComment. */
      comment?: CommentDocument;
      /** Set when the request's `current_password` was wrong: the login throttle counts it as a failed login. */
      wrongCurrentPassword?: true;
    }
  }
}

export {};
