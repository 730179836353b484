/** A comment's fields. */
export const COMMENT_LIMITS = { content: 1000 } as const;
