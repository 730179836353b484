/**
 * What a blog's text becomes before it is stored: HTML reduced to an allow-list (formatting, headings,
 * lists, tables, links and images stay; scripts, styles, event handlers, iframes and `javascript:` URLs go),
 * and a URL-friendly slug from the title.
 */
import sanitizeHtml from 'sanitize-html';
import { urlWordsOf } from '../schemas/blog';

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
    // "language-ts" and the like, for syntax highlighting on the client
    code: ['class'],
  },
  allowedClasses: { code: [/^language-[a-z0-9+#-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  // links that open a new tab must not hand the opener to the target page
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }) },
};

export function sanitizeBlogContent(html: string): string {
  return sanitizeHtml(html, SANITIZE_OPTIONS).trim();
}

const SLUG_MAX_LENGTH = 80;

/** "Hello, Wörld!" gives "hello-world" (schemas/blog.ts urlWordsOf); a title with no usable letters gives "post". */
export function slugBaseFromTitle(title: string): string {
  const slug = urlWordsOf(title);
  const cut = slug.length > SLUG_MAX_LENGTH ? slug.slice(0, SLUG_MAX_LENGTH).replace(/-[^-]*$/, '') : slug;
  return cut.replace(/^-+|-+$/g, '') || 'post';
}
