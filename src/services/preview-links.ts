/**
 * Preview links: a signed, expiring link to one draft that anyone holding it may read without signing in
 * (docs/admin-guide.md, "Preview links"). Nothing is stored per link: the token carries the blog's id, its
 * preview version and the expiry, signed with an HMAC key derived from the access-token secret for this
 * purpose alone. A link stops working when it expires, when the post is published, trashed or deleted
 * (only drafts are served), and when an admin revokes the post's links (its preview version goes up).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { API_BASE_PATH } from '../config/api';
import { NotFound } from '../errors/http-errors';
import { siteLinks } from '../lib/site-links';
import type { BlogView } from '../schemas/blog';
import type { BlogService } from './blog.service';

/** The one answer for every link that does not hold, so a guess learns nothing. */
export const PREVIEW_NOT_FOUND = 'Preview link not found or expired';

interface Claims {
  /** The blog's id. */
  b: string;
  /** Its preview version when the link was made. */
  v: number;
  /** Expiry, in milliseconds since the epoch. */
  e: number;
}

export interface PreviewLinkDeps {
  blogs: Pick<BlogService, 'previewVersionOf' | 'readPreview' | 'revokePreviews'>;
  /** The access-token secret, from which this purpose's key is derived. */
  secret: string;
  publicUrl: string;
  siteUrl?: string;
  now?: () => number;
}

export function createPreviewLinks({ blogs, secret, publicUrl, siteUrl, now = () => Date.now() }: PreviewLinkDeps) {
  const key = createHmac('sha256', secret).update('blog preview links').digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

  function claimsOf(token: string): Claims | undefined {
    const [payload, signature, ...rest] = token.split('.');
    if (!payload || !signature || rest.length > 0) return undefined;
    const expected = Buffer.from(sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claims;
      return claims.e > now() ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    /** A link to the draft for `lifetimeMs`: the API's URL, and the front end's when SITE_URL is set. */
    async create(blogId: string, lifetimeMs: number) {
      const version = await blogs.previewVersionOf(blogId);
      const expiresAt = new Date(now() + lifetimeMs);
      const payload = Buffer.from(JSON.stringify({ b: blogId, v: version, e: expiresAt.getTime() })).toString(
        'base64url',
      );
      const token = `${payload}.${sign(payload)}`;
      return {
        url: `${publicUrl}${API_BASE_PATH}/blogs/preview/${token}`,
        siteUrl: siteLinks(siteUrl)?.preview(token) ?? null,
        token,
        expiresAt,
      };
    },

    /** The draft the token names, or 404 with the same body whatever is wrong with it. */
    async read(token: string): Promise<BlogView> {
      const claims = claimsOf(token);
      const blog = claims && (await blogs.readPreview(claims.b, claims.v));
      if (!blog) throw new NotFound(PREVIEW_NOT_FOUND);
      return blog;
    },

    revokeAll: (blogId: string) => blogs.revokePreviews(blogId),
  };
}

export type PreviewLinks = ReturnType<typeof createPreviewLinks>;
