/**
 * What a blog's HTML says as plain text, for its card: the excerpt and the reading time. Stored when a
 * blog is written (services/blog.service.ts) and by the start-up backfill of older blogs
 * (models/blog.migrations.ts), so reads never parse HTML.
 */
import sanitizeHtml from 'sanitize-html';

/**
 * Tags after which the text goes on as a new block, every such tag the content may hold
 * (services/blog-content.ts): a space keeps "<p>end</p><p>Start" and "<dt>Term</dt><dd>Meaning" apart.
 */
const BLOCK_TAG =
  /<(\/?)(p|div|br|hr|li|ul|ol|dl|dt|dd|menu|h[1-6]|hgroup|header|footer|main|nav|section|article|aside|address|blockquote|pre|img|figure|figcaption|table|caption|thead|tbody|tfoot|tr|td|th)\b/gi;
/**
 * The version of the rules that turn a blog's HTML into text (BLOCK_TAG above, plainTextOf) and its text
 * into search terms (lib/search-text.ts termOf): one more whenever they change what a stored excerpt or
 * term would be. A blog stores the version its excerpt, reading time and search terms were worked out by
 * (`textRules`); the start-up backfill works those of any other out again. 3: compatibility forms fold.
 */
export const PLAIN_TEXT_RULES = 3;
/** What sanitize-html escapes in text, decoded back: the excerpt is plain text, not HTML. */
const ESCAPED: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

export const EXCERPT_LENGTH = 200;
export const WORDS_PER_MINUTE = 200;

/** The HTML's text: no tags (scripts and styles dropped with their text), whitespace collapsed to single spaces. */
export function plainTextOf(html: string): string {
  const text = sanitizeHtml(html.replace(BLOCK_TAG, ' <$1$2'), { allowedTags: [], allowedAttributes: {} });
  return text
    .replace(/&(?:amp|lt|gt|quot);/g, (entity) => ESCAPED[entity])
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first EXCERPT_LENGTH characters (code points) of the text, cut at a word boundary and marked "…" when cut. */
export function excerptOf(text: string): string {
  const characters = Array.from(text);
  if (characters.length <= EXCERPT_LENGTH) return text;
  const cut = characters.slice(0, EXCERPT_LENGTH + 1).join('');
  const atWord = cut.lastIndexOf(' ');
  // one word longer than the whole excerpt is cut inside it
  const kept = atWord > 0 ? cut.slice(0, atWord) : characters.slice(0, EXCERPT_LENGTH).join('');
  return `${kept.replace(/[\s.,;:!?-]+$/, '')}…`;
}

/** Whole minutes at WORDS_PER_MINUTE, at least one. */
export function readingTimeOf(text: string): number {
  const words = text === '' ? 0 : text.split(' ').length;
  return Math.max(1, Math.ceil(words / WORDS_PER_MINUTE));
}

/** A blog's card fields from its (sanitized) content. */
export function cardOf(html: string): { excerpt: string; readingTime: number } {
  const text = plainTextOf(html);
  return { excerpt: excerptOf(text), readingTime: readingTimeOf(text) };
}
