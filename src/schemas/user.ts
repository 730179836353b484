/** A user's fields: roles, social networks and length bounds, read by the model, the validators and the document. */
export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];

export const SOCIAL_NETWORKS = ['website', 'facebook', 'instagram', 'linkedin', 'x', 'youtube'] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

export const USER_LIMITS = { username: 20, email: 50, name: 20, socialLink: 100 } as const;
