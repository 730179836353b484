/** Who is asking, and what their role lets them see of blogs and their authors. */
import type { Types } from 'mongoose';
import { roleHasRight } from '../config/roles';
import { publicUserView, type Role } from '../models/user.model';
import type { PublicUserView, UserView } from '../schemas/user';

export interface Viewer {
  _id: Types.ObjectId;
  role: Role;
}

/** Regular users see only published blogs; a draft is as good as absent for them. */
export const canReadDrafts = (viewer: Viewer) => roleHasRight(viewer.role, 'blogs:read-drafts');

/** The blog filter that hides drafts from those who may not read them. */
export const visibleTo = (viewer: Viewer) => (canReadDrafts(viewer) ? {} : { status: 'published' as const });

/** Authors as the viewer may see them: with their email for account managers, without it for everyone else. */
export function authorView(author: unknown, viewer: Viewer): UserView | PublicUserView | null {
  if (!author) return null;
  // a view already (userView, or a populated author's toJSON)
  if (roleHasRight(viewer.role, 'users:manage')) return author as UserView;
  return publicUserView(author);
}
