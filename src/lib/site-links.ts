/**
 * Links into the front end (SITE_URL) that the API hands out: in feeds, mails and preview answers.
 * The paths are fixed and documented (docs/configuration.md), so a front end knows which pages to serve.
 */
export interface SiteLinks {
  post(slug: string): string;
  resetPassword(token: string): string;
  verifyEmail(token: string): string;
  preview(token: string): string;
}

/** The front end's links, or undefined when SITE_URL is unset (the features that need them say so). */
export function siteLinks(siteUrl: string | undefined): SiteLinks | undefined {
  if (!siteUrl) return undefined;
  const at = (path: string) => `${siteUrl}${path}`;
  return {
    post: (slug) => at(`/posts/${encodeURIComponent(slug)}`),
    resetPassword: (token) => at(`/reset-password?token=${encodeURIComponent(token)}`),
    verifyEmail: (token) => at(`/verify-email?token=${encodeURIComponent(token)}`),
    preview: (token) => at(`/preview?token=${encodeURIComponent(token)}`),
  };
}
