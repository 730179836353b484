/** A blog's fields: statuses, bounds and the multipart field of its banner. */
export const BLOG_STATUSES = ['draft', 'published'] as const;
export type BlogStatus = (typeof BLOG_STATUSES)[number];

export const BLOG_LIMITS = { title: 180 } as const;

/** The multipart field that carries a blog's banner image. */
export const BANNER_FIELD = 'banner_image';
