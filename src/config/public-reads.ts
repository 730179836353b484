/**
 * PUBLIC_READS: a switch (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, as before) or, to turn it on with
 * cache durations of one's own, the Cache-Control directives of the anonymous answers
 * (`max-age=30,stale-while-revalidate=120`; either may be left out for its default). One setting says both,
 * because the durations only mean something when anonymous answers exist.
 */
import { readNamedParts } from './named-parts';

/** How long a CDN or browser may keep a public answer, then serve it stale while it asks again. */
export interface PublicCachePolicy {
  maxAgeSeconds: number;
  staleWhileRevalidateSeconds: number;
}

export const DEFAULT_PUBLIC_CACHE: PublicCachePolicy = { maxAgeSeconds: 60, staleWhileRevalidateSeconds: 300 };

/** A day of max-age, a week of stale-while-revalidate: beyond that a published correction would take too long. */
const DIRECTIVE_BOUNDS = { 'max-age': 86_400, 'stale-while-revalidate': 604_800 } as const;
type Directive = keyof typeof DIRECTIVE_BOUNDS;

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

export const PUBLIC_READS_FORMAT =
  'must be true or false (1/0, yes/no, on/off), or the cache directives of anonymous answers such as ' +
  `max-age=60,stale-while-revalidate=300 (at most ${DIRECTIVE_BOUNDS['max-age']} and ` +
  `${DIRECTIVE_BOUNDS['stale-while-revalidate']} seconds)`;

export interface PublicReads {
  enabled: boolean;
  cache: PublicCachePolicy;
}

/** The directives `name=seconds` separated by commas, or undefined when any is unknown, repeated or out of bounds. */
function parseDirectives(value: string): PublicCachePolicy | undefined {
  const parts = readNamedParts(value, Object.keys(DIRECTIVE_BOUNDS) as Directive[]);
  if (!parts.ok) return undefined;
  const seconds = (name: Directive, fallback: number) => {
    const text = parts.values[name];
    if (text === undefined) return fallback;
    return /^\d{1,7}$/.test(text) && Number(text) <= DIRECTIVE_BOUNDS[name] ? Number(text) : undefined;
  };
  const maxAgeSeconds = seconds('max-age', DEFAULT_PUBLIC_CACHE.maxAgeSeconds);
  const staleWhileRevalidateSeconds = seconds(
    'stale-while-revalidate',
    DEFAULT_PUBLIC_CACHE.staleWhileRevalidateSeconds,
  );
  if (maxAgeSeconds === undefined || staleWhileRevalidateSeconds === undefined) return undefined;
  return { maxAgeSeconds, staleWhileRevalidateSeconds };
}

/** PUBLIC_READS read: undefined when it is neither a switch nor directives (the configuration then refuses to start). */
export function parsePublicReads(value: string | undefined): PublicReads | undefined {
  // the switch words exactly as before (lower case, untrimmed); only what is not one of them is read as directives
  const word = value ?? '';
  if (word === '' || FALSE_WORDS.includes(word)) return { enabled: false, cache: DEFAULT_PUBLIC_CACHE };
  if (TRUE_WORDS.includes(word)) return { enabled: true, cache: DEFAULT_PUBLIC_CACHE };
  const cache = parseDirectives(word);
  return cache && { enabled: true, cache };
}
