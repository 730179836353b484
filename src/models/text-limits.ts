/**
 * Length bounds that the schemas and the request validators measure alike. Mongoose's `maxlength`
 * counts UTF-16 units, where express-validator's isLength counts an emoji (a surrogate pair) or a
 * character with its presentation selector as one: with both in play, "a" × 999 + "😀" would pass the
 * validator and then fail the schema with a message of the database layer.
 */
export function characterLength(text: string): number {
  const presentationSequences = text.match(/[^\uFE0F\uFE0E][\uFE0F\uFE0E]/g)?.length ?? 0;
  const surrogatePairs = text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0;
  return text.length - presentationSequences - surrogatePairs;
}

/** A schema validator: at most `limit` characters, counted as the request validators count them. */
export function maxCharacters(limit: number) {
  return {
    validator: (value: unknown) => typeof value !== 'string' || characterLength(value) <= limit,
    message: `{PATH} must be at most ${limit} characters`,
  };
}
