/**
 * A blog's fields, said once: statuses, bounds and the multipart field of its banner (read by the
 * model and the upload), the Blog view the API shows, and the create and update forms with their rules.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ParamSchema } from 'express-validator';
import slugify from 'slugify';
import {
  DateTimeRef,
  ObjectIdRef,
  bodyOf,
  componentRef,
  documentedField,
  requiredKeysOf,
  oneOfField,
  optional,
  pageOf,
  singleQuery,
  type Field,
  stringEnum,
  textField,
} from './common';
import { AuthorCardSchema, AuthorRef, type AuthorCardView } from './user';

export const BLOG_STATUSES = ['draft', 'published'] as const;
export type BlogStatus = (typeof BLOG_STATUSES)[number];

export const BLOG_LIMITS = { title: 180, excerpt: 300, tags: 10, tag: 30, query: 200 } as const;

/** The list switch that leaves `content` out (see BlogCardSchema). */
export const BLOG_LIST_FIELDS = ['card'] as const;

const TAG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
const TAG_RULE = `lowercase letters, digits and single hyphens, 1 to ${BLOG_LIMITS.tag} characters`;

const MARKUP = /[<>&"']/g;
/** Symbols (currency, maths, arrows, emoji, ©) and "%", the punctuation slugify's table spells out. */
const SPELLED_OUT = /[\p{S}%]/gu;

/**
 * Text as lower-case ASCII words joined by single hyphens, the rule slugs and tags share ("Hello, Wörld!" is
 * "hello-world"): letters written as compatibility forms read as those letters first (the ligature "ﬁ" of a
 * PDF, full-width "ＡＰＩ"), accents folded, and every other character dropped. slugify would spell some
 * symbols out from its table ("$5" as "dollar5", "100%" as "100percent", "I♥NY" as "iloveny", "<3" as
 * "less3"): symbols go before it sees them, and markup characters part words. "" when nothing is left.
 */
export function urlWordsOf(text: string): string {
  const bare = text.normalize('NFKC').replace(MARKUP, ' ').replace(SPELLED_OUT, '');
  return slugify(bare, { lower: true, strict: true, trim: true });
}

/**
 * A tag as stored and matched, by the rule of slugs (urlWordsOf): "Node JS" and "node-js" are one tag,
 * "ﬁnance" is "finance", "C++" is "c" and "$money" is "money"; nothing usable left gives "".
 */
export const normaliseTag = (tag: string): string => urlWordsOf(tag);

export const BANNER_LIMITS = {
  bytes: 2 * 1024 * 1024,
  /** A 2 MB file can still claim a gigapixel canvas (a decompression bomb); 50 megapixels is a generous banner. */
  pixels: 50_000_000,
  /** Its longer side: the banner is served in its own width as WebP too, whose sides stop at 16,383 pixels. */
  side: 16_383,
} as const;

/**
 * The widths a banner is also served in (never wider than the banner itself, which is served in its own
 * width too), and their encoding: WebP only, as AVIF is too slow to encode here (bench/README.md).
 */
export const BANNER_VARIANT_WIDTHS = [320, 640, 1280] as const;
/** A card's image: the narrowest variant at least this wide (a card of up to 320 CSS pixels at twice the density). */
export const CARD_IMAGE_WIDTH = 640;
export const BANNER_VARIANT_FORMATS = ['webp'] as const;

/** The multipart field that carries a blog's banner image. */
export const BANNER_FIELD = 'banner_image';

/**
 * Security note for clients, on every field a reader sees: titles and comments are plain text kept
 * exactly as sent (`<script>` included), while blog content is HTML sanitised on the way in.
 */
export const PLAIN_TEXT =
  'Plain text, returned exactly as sent: it may contain "<", ">", "&" or quotes, even a `<script>` tag. ' +
  "Render it as text (textContent, or your template's escaping), never as HTML.";
export const SANITISED_HTML =
  'HTML, sanitised when stored: an allow-list of formatting tags and attributes; no scripts, event handlers, ' +
  'styles, iframes or javascript: URLs. Safe to insert as HTML; everything else in a blog or comment is plain text.';

export const CountSchema = Type.Integer({ minimum: 0 });

/** A search hit's text around its first match, marked with offsets rather than HTML a client must trust. */
export const SnippetSchema = Type.Object(
  {
    text: Type.String({
      description: `About 160 characters of the text around the first matched word (the title when only it matched), "…" where cut. ${PLAIN_TEXT}`,
    }),
    matches: Type.Array(
      Type.Unsafe<[number, number]>(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2 })),
      {
        description:
          'Each matched word as [start, end) offsets into `text` in UTF-16 code units (`text.slice(start, end)`)',
      },
    ),
  },
  { additionalProperties: false },
);
export type SnippetView = Static<typeof SnippetSchema>;

// ---- the view ---------------------------------------------------------------------------------------

/** One size of a banner, never wider than the banner. */
export const BannerVariantSchema = Type.Object(
  {
    url: Type.String({ format: 'uri' }),
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
    format: stringEnum(BANNER_VARIANT_FORMATS),
  },
  { additionalProperties: false },
);
export type BannerVariant = Static<typeof BannerVariantSchema>;

export const BlogSchema = Type.Object(
  {
    _id: ObjectIdRef,
    title: Type.String({ minLength: 1, maxLength: BLOG_LIMITS.title, description: PLAIN_TEXT }),
    slug: Type.String({ minLength: 1, description: 'URL-friendly, unique, generated from the title' }),
    content: Type.String({ description: SANITISED_HTML }),
    excerpt: Type.String({
      maxLength: BLOG_LIMITS.excerpt,
      description: `Plain text for a card: the admin's own, or the content's first ~200 characters, cut at a word and ended "…". ${PLAIN_TEXT}`,
    }),
    readingTime: Type.Integer({ minimum: 1, description: 'Minutes to read the content, at 200 words a minute' }),
    tags: Type.Array(Type.String({ pattern: TAG_PATTERN, maxLength: BLOG_LIMITS.tag }), {
      maxItems: BLOG_LIMITS.tags,
      uniqueItems: true,
      description: `Normalised: ${TAG_RULE}; empty when none`,
    }),
    banner: Type.Object(
      {
        url: Type.String({ format: 'uri' }),
        width: Type.Integer({ minimum: 1 }),
        height: Type.Integer({ minimum: 1 }),
        variants: Type.Optional(
          Type.Array(BannerVariantSchema, {
            description:
              'The banner resized, narrowest first, for `srcset` (`url` + " " + `width` + "w"); empty for a banner stored before variants until `npm run banners:backfill` makes them',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    author: AuthorRef,
    viewsCount: CountSchema,
    likesCount: CountSchema,
    commentsCount: CountSchema,
    status: stringEnum(BLOG_STATUSES),
    publishedAt: Type.Unsafe<Static<typeof DateTimeRef> | null>({
      anyOf: [DateTimeRef, { type: 'null' }],
      description: 'null while a draft',
    }),
    publishAt: Type.Optional(
      Type.Unsafe<Static<typeof DateTimeRef>>({
        ...DateTimeRef,
        description: 'When a scheduled draft goes live by itself; only on scheduled drafts, which only admins see',
      }),
    ),
    createdAt: DateTimeRef,
    updatedAt: DateTimeRef,
    likedByMe: Type.Boolean({ description: 'Whether the signed-in user likes this blog' }),
    snippet: Type.Optional(componentRef('Snippet', SnippetSchema)),
  },
  { additionalProperties: false },
);
export type BlogView = Static<typeof BlogSchema>;

/** The fields every blog response carries, in order (optional ones come on top when set). */
export const BLOG_VIEW_KEYS = requiredKeysOf(BlogSchema);

export const BlogResponseSchema = Type.Object(
  { blog: componentRef('Blog', BlogSchema) },
  { additionalProperties: false },
);
/**
 * A page of blogs: the spec's page, with `total` null only when `count=false` asked not to count, and
 * `nextCursor` to ask for the page after it (null on the last page).
 */
function blogPageOf<T extends TSchema>(item: T) {
  const page = pageOf('blogs', item);
  return Type.Object(
    {
      ...page.properties,
      total: Type.Unsafe<number | null>({
        anyOf: [{ type: 'integer', minimum: 0 }, { type: 'null' }],
        description: 'How many exist in all, across pages; null only with `count=false`',
      }),
      nextCursor: Type.Optional(
        Type.Unsafe<string | null>({
          anyOf: [{ type: 'string' }, { type: 'null' }],
          description: 'Give it as `cursor` for the next page (same query); null on the last page',
        }),
      ),
    },
    { additionalProperties: false },
  );
}
export const BlogPageSchema = blogPageOf(componentRef('Blog', BlogSchema));

/**
 * A blog as a card shows it, as `fields=card` lists it: what a list of posts needs (title, link, excerpt,
 * reading time, tags, one image, author's name, counts, dates), not the content, the banner's every size,
 * the author's profile or, for readers who see only published posts, a status. A page of 20 is under a
 * tenth of the full page's bytes (bench/README.md).
 */
const blog = BlogSchema.properties;
export const BlogCardSchema = Type.Object(
  {
    _id: blog._id,
    title: blog.title,
    slug: blog.slug,
    excerpt: blog.excerpt,
    readingTime: blog.readingTime,
    tags: blog.tags,
    banner: Type.Object(
      {
        url: Type.String({ format: 'uri' }),
        width: Type.Integer({ minimum: 1 }),
        height: Type.Integer({ minimum: 1 }),
      },
      {
        additionalProperties: false,
        description: `One image for the card: the banner's narrowest variant at least ${CARD_IMAGE_WIDTH} pixels wide (else its widest), or the banner itself while it has no variants; the Blog carries every size`,
      },
    ),
    author: Type.Unsafe<AuthorCardView | null>(componentRef('AuthorCard', AuthorCardSchema)),
    likesCount: blog.likesCount,
    commentsCount: blog.commentsCount,
    status: Type.Optional({
      ...blog.status,
      description: 'Only for admins, who see drafts too; every card other readers are shown is published',
    }),
    publishedAt: blog.publishedAt,
    publishAt: blog.publishAt,
    likedByMe: blog.likedByMe,
    snippet: blog.snippet,
  },
  { additionalProperties: false },
);
export type BlogCardView = Static<typeof BlogCardSchema>;

interface Image {
  url: string;
  width: number;
  height: number;
}
/** A banner's card image: its narrowest variant at least CARD_IMAGE_WIDTH wide, else its widest, else the banner. */
export function cardImageOf(banner: Image & { variants?: readonly Image[] }): Image {
  const variants = banner.variants ?? [];
  const { url, width, height } =
    variants.find((variant) => variant.width >= CARD_IMAGE_WIDTH) ?? variants[variants.length - 1] ?? banner;
  return { url, width, height };
}
export const BlogCardPageSchema = blogPageOf(componentRef('BlogCard', BlogCardSchema));

// ---- the list queries -------------------------------------------------------------------------------

/** The orders a list may be asked for: a field, descending when led by "-". */
export const BLOG_SORT_KEYS = [
  '-createdAt',
  'createdAt',
  '-publishedAt',
  'publishedAt',
  '-likesCount',
  'likesCount',
  '-viewsCount',
  'viewsCount',
] as const;
export type BlogSortKey = (typeof BLOG_SORT_KEYS)[number];
/** A cursor is ours (lib/list-cursor.ts) and short; anything longer is not one. */
const CURSOR_MAX_LENGTH = 300;

/** An ISO 8601 date-time query parameter, handed on as a Date once `checks` (on the text as sent) have passed. */
const dateQuery = (label: string, checks: ParamSchema = {}): ParamSchema => ({
  ...singleQuery(label),
  isISO8601: {
    options: { strict: true, strictSeparator: true },
    errorMessage: `${label} must be an ISO 8601 date-time, such as 2026-01-31T00:00:00Z`,
    bail: true,
  },
  ...checks,
  toDate: true,
});

const tagMessage = `Tag must be ${TAG_RULE} once normalised`;
const isTag = (tag: string) => tag.length >= 1 && tag.length <= BLOG_LIMITS.tag;

/** `tag`, `q` and `fields` of GET /blogs/ and /blogs/user/{userId}: a tag's posts, a search, and cards instead of whole blogs. */
export const BLOG_LIST_QUERY = {
  tag: {
    schema: Type.String({
      minLength: 1,
      description: `Only blogs with this tag; normalised as tags are (${TAG_RULE})`,
    }),
    rules: {
      ...singleQuery('Tag'),
      // checked before it is normalised, so that a refusal echoes the tag as sent
      custom: { options: (value: string) => isTag(normaliseTag(value)), errorMessage: tagMessage },
      customSanitizer: { options: (value: string) => normaliseTag(value) },
    },
  },
  q: {
    schema: Type.String({
      minLength: 1,
      maxLength: BLOG_LIMITS.query,
      description:
        'Search: only blogs whose title or text holds every word (stemmed, accents and case ignored, stop words ' +
        'dropped), those whose title holds them all first, then newest first; each carries a `snippet`. ' +
        'Refused when it has no word to look for (stop words, punctuation or symbols alone).',
    }),
    rules: {
      ...singleQuery('Search'),
      trim: true,
      isLength: {
        options: { min: 1, max: BLOG_LIMITS.query },
        errorMessage: `Search must be 1 to ${BLOG_LIMITS.query} characters`,
        bail: true,
      },
    },
  },
  fields: {
    schema: stringEnum(BLOG_LIST_FIELDS, {
      description:
        '`card`: each blog as a card shows it (BlogCard: no `content`, one image, the author by name); by default the whole Blog',
    }),
    rules: {
      ...singleQuery('Fields'),
      isIn: { options: [[...BLOG_LIST_FIELDS]], errorMessage: `Fields must be one of: ${BLOG_LIST_FIELDS.join(', ')}` },
    },
  },
  sort: {
    schema: stringEnum(BLOG_SORT_KEYS, {
      default: '-createdAt',
      description:
        'The order, by a field, descending when led by `-`; ties go by `_id` the same way. Drafts never published ' +
        '(no `publishedAt`) come first by `publishedAt`, last by `-publishedAt`',
    }),
    rules: {
      ...singleQuery('Sort'),
      isIn: { options: [[...BLOG_SORT_KEYS]], errorMessage: `Sort must be one of: ${BLOG_SORT_KEYS.join(', ')}` },
    },
  },
  status: {
    schema: stringEnum(BLOG_STATUSES, {
      description: 'Admins only: blogs of this status (others see published ones; `draft` is a 400 for them)',
    }),
    rules: {
      ...singleQuery('Status'),
      isIn: { options: [[...BLOG_STATUSES]], errorMessage: `Status must be one of: ${BLOG_STATUSES.join(', ')}` },
    },
  },
  author: {
    schema: Type.String({ pattern: '^[0-9a-fA-F]{24}$', description: "Only this author's blogs (a user's id)" }),
    rules: { ...singleQuery('Author'), isMongoId: { errorMessage: 'Author must be a valid id' } },
  },
  publishedAfter: {
    schema: Type.String({
      format: 'date-time',
      description: 'Only blogs whose `publishedAt` is after this time (ISO 8601)',
    }),
    rules: dateQuery('publishedAfter'),
  },
  publishedBefore: {
    schema: Type.String({
      format: 'date-time',
      description: 'Only blogs whose `publishedAt` is before this time (ISO 8601), later than `publishedAfter`',
    }),
    rules: dateQuery('publishedBefore', {
      custom: {
        options: (before: string, { req }) => {
          const after = new Date(String(req.query?.publishedAfter));
          return Number.isNaN(after.getTime()) || after < new Date(before);
        },
        errorMessage: 'publishedBefore must be later than publishedAfter',
      },
    }),
  },
  cursor: {
    schema: Type.String({
      minLength: 1,
      maxLength: CURSOR_MAX_LENGTH,
      description:
        "The `nextCursor` of the previous page, with the same query (sort and filters); not with `offset`. Later pages then follow that page's last blog, so posts written meanwhile neither shift nor repeat them",
    }),
    rules: {
      ...singleQuery('Cursor'),
      isLength: {
        options: { min: 1, max: CURSOR_MAX_LENGTH },
        errorMessage: 'Cursor is not one this API gave',
        bail: true,
      },
      custom: {
        options: (_cursor: string, { req }) => req.query?.offset === undefined,
        errorMessage: 'Give either cursor or offset, not both',
      },
    },
  },
  count: {
    schema: stringEnum(['true', 'false'], {
      default: 'true',
      description: '`false` skips counting: `total` is then null (cheaper on large collections)',
    }),
    rules: {
      ...singleQuery('Count'),
      isIn: { options: [['true', 'false']], errorMessage: 'Count must be "true" or "false"', bail: true },
      toBoolean: { options: [true] },
    },
  },
} satisfies Record<string, Field>;

/** The list query parameters, in the order the document lists them. */
export const BLOG_LIST_PARAMETERS = Object.keys(BLOG_LIST_QUERY) as (keyof typeof BLOG_LIST_QUERY)[];

/** GET /tags: each tag with how many blogs the viewer may see carry it. */
export const TagCountSchema = Type.Object(
  { name: Type.String({ pattern: TAG_PATTERN }), count: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);
export const TagPageSchema = pageOf('tags', componentRef('TagCount', TagCountSchema));
export type TagCountView = Static<typeof TagCountSchema>;

// ---- the create and update forms (multipart) --------------------------------------------------------

const title = textField('Title', { minLength: 1, maxLength: BLOG_LIMITS.title, description: `Trimmed. ${PLAIN_TEXT}` });

/**
 * Content's bound is the operator's (BLOG_CONTENT_MAX_LENGTH), so the forms are made for it. The
 * validators add the sanitizing (services/blog-content.ts) after the length check bails.
 */
const content = (maxLength: number) =>
  textField(
    'Content',
    {
      minLength: 1,
      maxLength,
      description: `${SANITISED_HTML} Refused when nothing is left once sanitised (only a script, say).`,
    },
    { bail: true },
  );

/**
 * Tags arrive as repeated multipart fields (`tags=a&tags=b`, an array) or as one comma-separated field
 * (`tags=a,b`), or both; each is normalised and duplicates merged. An empty `tags` field means none (an
 * update clears them); an entry with nothing usable in it is refused, as are too many or too long ones.
 */
const tagList = (value: unknown): string[] => {
  const entries = (Array.isArray(value) ? value : [value]).flatMap((item) => String(item).split(','));
  if (entries.length === 1 && entries[0].trim() === '') return [];
  return [...new Set(entries.map(normaliseTag))];
};
const tags = {
  schema: Type.Optional(
    Type.Array(Type.String({ maxLength: BLOG_LIMITS.tag }), {
      maxItems: BLOG_LIMITS.tags,
      description:
        `Up to ${BLOG_LIMITS.tags} tags, as repeated fields or comma-separated, normalised to ${TAG_RULE} ` +
        '("Node JS" becomes "node-js"; duplicates merged). An empty field means none: an update replaces the tags.',
    }),
  ),
  rules: {
    optional: true,
    custom: {
      options: (value: unknown) => (Array.isArray(value) ? value : [value]).every((item) => typeof item === 'string'),
      errorMessage: 'Tags must be text fields',
      bail: true,
    },
    // checked before they are normalised, so that a refusal echoes the tags as sent
    isTags: {
      custom: (value: unknown) => tagList(value).every(isTag),
      errorMessage: `Each tag must be ${TAG_RULE} once normalised`,
      bail: true,
    },
    customSanitizer: { options: tagList },
    fewTags: {
      custom: (value: string[]) => value.length <= BLOG_LIMITS.tags,
      errorMessage: `At most ${BLOG_LIMITS.tags} tags`,
    },
  } as ParamSchema,
} satisfies Field;

const excerpt = optional(
  textField('Excerpt', {
    maxLength: BLOG_LIMITS.excerpt,
    description: `The card's text instead of the content's beginning. Trimmed; empty returns to the automatic one. ${PLAIN_TEXT}`,
  }),
);

const status = (json: { default?: BlogStatus } = {}) => optional(oneOfField('Status', BLOG_STATUSES, json));

/** How far ahead a post may be scheduled. */
export const PUBLISH_AT_MAX_AHEAD_MS = 366 * 24 * 60 * 60 * 1000;

/** `publishAt`: a future date-time at most a year ahead; empty (updates) clears a schedule. */
const publishAt = {
  schema: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Publish this draft by itself at that time (in the future, at most a year ahead); the post stays a draft until then. ' +
        'An empty value clears the schedule; status=published (without publishAt) publishes at once and clears it. ' +
        'Beside status=published it is a 400: the two ask for opposite things. On a published post it needs ' +
        'status=draft beside it (the post is taken down until then); alone, a 400.',
    }),
  ),
  rules: {
    optional: true,
    isString: { errorMessage: 'publishAt must be text', bail: true },
    custom: {
      options: (value: string) => value === '' || isSchedulable(value),
      errorMessage: 'publishAt must be a date-time in the future, at most a year ahead',
      bail: true,
    },
    // publishing now and later at once: which one the client meant cannot be told, and publishing is not undone
    notPublishedNow: {
      custom: (value: string, { req }: { req: { body?: { status?: unknown } } }) =>
        value === '' || req.body?.status !== 'published',
      errorMessage:
        'publishAt schedules a draft: send it without status=published to schedule the post, or leave it out to publish now',
    },
  } as ParamSchema,
} satisfies Field;

function isSchedulable(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return false;
  const at = Date.parse(value);
  return Number.isFinite(at) && at > Date.now() && at - Date.now() <= PUBLISH_AT_MAX_AHEAD_MS;
}

/** The banner: checked by the validators themselves (present, and an image the banner service can decode). */
const banner = documentedField(
  Type.Unsafe<unknown>({
    type: 'string',
    format: 'binary',
    contentMediaType: 'application/octet-stream',
    description: `PNG, JPEG or WebP, at most ${BANNER_LIMITS.bytes / (1024 * 1024)} MB, ${BANNER_LIMITS.pixels / 1_000_000} megapixels and ${BANNER_LIMITS.side} pixels on a side`,
  }),
);

export const createBlogBody = (contentMaxLength: number) =>
  bodyOf({
    title,
    content: content(contentMaxLength),
    status: status({ default: 'draft' }),
    tags,
    excerpt,
    publishAt,
    [BANNER_FIELD]: banner,
  });

export const updateBlogBody = (contentMaxLength: number) =>
  bodyOf({
    title: optional(title),
    content: optional(content(contentMaxLength)),
    status: status(),
    tags,
    excerpt,
    publishAt,
    regenerate_slug: optional(
      oneOfField(
        'regenerate_slug',
        ['true', 'false'],
        { description: 'Derive the slug again from the (new) title' },
        { message: 'regenerate_slug must be "true" or "false"', bail: true, then: { toBoolean: { options: true } } },
      ),
    ),
    [BANNER_FIELD]: optional(banner),
  });

/** A blog's own fields as its forms send them once validated (the banner aside): what the service stores. */
export type BlogFields = Omit<Static<ReturnType<typeof createBlogBody>['schema']>, typeof BANNER_FIELD>;
