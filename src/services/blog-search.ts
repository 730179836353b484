/**
 * The search part of a blog list (`?q=`), as filter fragments and a sort that the list merges with its
 * own filter (visibility, author, tag, and any other filter): the matches are the blogs whose stored
 * terms hold every term of the query (lib/search-text.ts), found on the searchTerms index with `$all`,
 * the same on MongoDB and the stand-in, which has no `$text`. Relevance is two tiers read one after the
 * other: blogs whose title holds every term, then the others; newest first within each.
 */
import type { SnippetView } from '../schemas/blog';
import { plainTextOf } from '../lib/plain-text';
import { snippetOf, termsOf, titleTermsOf } from '../lib/search-text';
import { blogOrder, type BlogFilter, type BlogOrder } from './blog-list-query';

export interface BlogSearch {
  /** The query's terms (never empty: the validators refuse a query of only stop words). */
  terms: string[];
  /** Every match: merge into the list's filter for the total. */
  filter: BlogFilter;
  /** The relevance tiers, best first; together exactly the matches, each merged into the list's filter. */
  tiers: [BlogFilter, BlogFilter];
  /** The order within a tier: newest first. */
  order: BlogOrder;
}

const NEWEST_FIRST = blogOrder('createdAt', -1);

/** The search for a query, or undefined when it holds no word worth searching for. */
export function blogSearchOf(query: string): BlogSearch | undefined {
  const terms = termsOf(query);
  if (terms.length === 0) return undefined;
  const inTitle = { searchTerms: { $all: titleTermsOf(terms) } };
  const all = { searchTerms: { $all: terms } };
  return {
    terms,
    filter: all,
    // the title's terms are among the blog's terms too, so the first tier needs no second condition
    tiers: [inTitle, { ...all, $nor: [inTitle] }],
    order: NEWEST_FIRST,
  };
}

/** Whether a query has a word to search for (the validators' check). */
export const isSearchable = (query: string) => termsOf(query).length > 0;

/** A hit's snippet from its stored title and content. */
export function blogSnippet(blog: Record<string, unknown>, search: BlogSearch): SnippetView {
  return snippetOf(String(blog.title ?? ''), plainTextOf(String(blog.content ?? '')), new Set(search.terms));
}
