/**
 * Words as search sees them: split on anything that is not a letter or digit, lower-cased, accents
 * folded ("Café" is "cafe") and compatibility forms read as the letters they stand for (the ligature "ﬁ"
 * of text pasted from a PDF is "fi", full-width "ｃａｆé" is "cafe", as tags read them), English stop
 * words (stopword's list) dropped, each reduced to its Porter2
 * (Snowball) stem by wink-porter2-stemmer, so "running" and "runs" are one term. A blog stores the terms
 * of its title and text when written (services/blog.service.ts); a query is reduced the same way and
 * matched on those terms with an index, never with a regular expression, so no input becomes a pattern.
 */
import stem from 'wink-porter2-stemmer';
import { eng as ENGLISH_STOP_WORDS } from 'stopword';
import type { SnippetView } from '../schemas/blog';

/** A word in text: letters and digits, with their combining marks (a decomposed "é" is one word). */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
const COMBINING_MARKS = /\p{M}+/gu;
const STOP_WORDS = new Set(ENGLISH_STOP_WORDS);
/** Longer "words" (a hash, a base64 blob) are not worth an index entry; they never match. */
const MAX_WORD_LENGTH = 40;
/** The mark of a title's terms among a blog's terms (no stem holds a colon). */
const TITLE_MARK = 't:';

/** One word's term, or undefined for a stop word or an over-long one. */
export function termOf(word: string): string | undefined {
  const folded = word.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
  if (folded.length > MAX_WORD_LENGTH || STOP_WORDS.has(folded)) return undefined;
  return stem(folded);
}

/** The distinct terms of a text, in order of first appearance (none for only stop words or punctuation). */
export function termsOf(text: string): string[] {
  const terms = new Set<string>();
  for (const [word] of text.matchAll(WORD)) {
    const term = termOf(word);
    if (term) terms.add(term);
  }
  return [...terms];
}

/**
 * What a blog stores to be found (`searchTerms`, one multikey index): the terms of its title and text,
 * and the title's again marked `t:`, so "the title holds every word" is one index lookup as well.
 */
export function searchTermsOf(title: string, text: string): string[] {
  const titleTerms = termsOf(title);
  return [...new Set([...titleTerms, ...termsOf(text)]), ...titleTerms.map((term) => TITLE_MARK + term)];
}

/** The stored terms a title holding every term of a query carries. */
export const titleTermsOf = (terms: readonly string[]) => terms.map((term) => TITLE_MARK + term);

export const SNIPPET_LENGTH = 160;
/** How much text comes before the first match, so the match is read in its sentence. */
const SNIPPET_LEAD = 50;

interface Word {
  start: number;
  end: number;
  matched: boolean;
}

/** Whether a word's term is one of the query's: each distinct word is stemmed once per snippet. */
function matcherOf(terms: ReadonlySet<string>): (word: string) => boolean {
  const known = new Map<string, boolean>();
  return (word) => {
    let matched = known.get(word);
    if (matched === undefined) {
      matched = terms.has(termOf(word) ?? '');
      known.set(word, matched);
    }
    return matched;
  };
}

/**
 * The words of a text as far as a snippet can reach: up to SNIPPET_LENGTH characters past the first
 * matched word (the snippet starts at most SNIPPET_LEAD before it), or all of them when none matched.
 */
function wordsOf(text: string, matches: (word: string) => boolean): Word[] {
  const words: Word[] = [];
  let reach = Infinity;
  for (const match of text.matchAll(WORD)) {
    if (match.index >= reach) break;
    const matched = matches(match[0]);
    words.push({ start: match.index, end: match.index + match[0].length, matched });
    if (matched && reach === Infinity) reach = match.index + SNIPPET_LENGTH;
  }
  return words;
}

/**
 * The snippet of a hit for a query's terms: about SNIPPET_LENGTH characters of the text from a little
 * before its first matched word, cut at spaces and marked "…" where cut, with the [start, end) offsets
 * (UTF-16, as String.slice counts) of each matched word in it. When only the title matched, the title.
 */
export function snippetOf(title: string, text: string, terms: ReadonlySet<string>): SnippetView {
  const matches = matcherOf(terms);
  const words = wordsOf(text, matches);
  if (!words.some((word) => word.matched)) return cut(title, wordsOf(title, matches));
  return cut(text, words);
}

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Far enough back to start the segmenter before the character at a cut: a family emoji is 11 UTF-16 units. */
const GRAPHEME_LOOKBACK = 64;

/**
 * `end`, or the start of the character (grapheme: "é" as e and its accent, an emoji sequence) it falls inside.
 * A character longer than the look-back (30 emoji joined into one) is cut, but never inside a surrogate pair.
 */
function characterBoundary(text: string, end: number): number {
  const from = Math.max(0, end - GRAPHEME_LOOKBACK);
  let boundary = from;
  for (const { index } of GRAPHEMES.segment(text.slice(from, end + GRAPHEME_LOOKBACK))) {
    if (from + index > end) break;
    boundary = from + index;
  }
  const code = text.charCodeAt(boundary);
  return code >= 0xdc00 && code <= 0xdfff ? boundary - 1 : boundary;
}

function cut(text: string, words: Word[]): SnippetView {
  const first = words.find((word) => word.matched);
  let start = first ? Math.max(0, first.start - SNIPPET_LEAD) : 0;
  // start at a word: the first one after the lead's cut, never past the match
  if (start > 0) start = Math.min(words.find((word) => word.start >= start)?.start ?? first!.start, first!.start);
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    end = space > (first ? first.end : start) ? space : end;
    // no space to cut at (Japanese, a run of emoji): never inside a character
    if (end !== space) end = characterBoundary(text, end);
  }
  const lead = start > 0 ? '…' : '';
  const body = text.slice(start, end).trimEnd();
  const shift = lead.length - start;
  const matches = words
    .filter((word) => word.matched && word.end <= start + body.length && word.start >= start)
    .map((word): [number, number] => [word.start + shift, word.end + shift]);
  return { text: lead + body + (end < text.length ? '…' : ''), matches };
}
