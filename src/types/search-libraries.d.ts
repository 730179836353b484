/** wink-porter2-stemmer and stopword ship no types; this project uses one function and one list of each. */
declare module 'wink-porter2-stemmer' {
  /** The Porter2 (English Snowball) stem of one lower-case word. */
  export default function stem(word: string): string;
}
declare module 'stopword' {
  /** English stop words, lower case. */
  export const eng: readonly string[];
}
