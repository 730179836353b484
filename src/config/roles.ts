/**
 * Permissions as data: routes ask for a right, and this table says which roles hold it.
 */
import type { Role } from '../schemas/user';

export const RIGHTS = [
  'users:manage',
  'blogs:manage',
  'blogs:read-drafts',
  'comments:moderate',
  'webhooks:manage',
] as const;
export type Right = (typeof RIGHTS)[number];

const roleRights: Record<Role, readonly Right[]> = {
  user: [],
  admin: ['users:manage', 'blogs:manage', 'blogs:read-drafts', 'comments:moderate', 'webhooks:manage'],
};

export function roleHasRight(role: Role, right: Right): boolean {
  return roleRights[role].includes(right);
}
