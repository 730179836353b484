// What authenticate() attaches to a request.
import type { Types } from 'mongoose';
import type { UserDocument } from '../models/user.model';

declare global {
  namespace Express {
    interface Request {
      /** The signed-in user, set by authenticate(). */
      user?: UserDocument;
      /** The session the access token belongs to, set by authenticate(). */
      sessionId?: Types.ObjectId;
    }
  }
}

export {};
