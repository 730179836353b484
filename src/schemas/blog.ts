/**
 * A blog's fields, said once: statuses, bounds and the multipart field of its banner (read by the
 * model and the upload), the Blog view the API shows, and the create and update forms with their rules.
 */
import { Type, type Static } from '@sinclair/typebox';
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
  stringEnum,
  textField,
} from './common';
import { AuthorRef } from './user';

export const BLOG_STATUSES = ['draft', 'published'] as const;
export type BlogStatus = (typeof BLOG_STATUSES)[number];

export const BLOG_LIMITS = { title: 180 } as const;

export const BANNER_LIMITS = {
  bytes: 2 * 1024 * 1024,
  /** A 2 MB file can still claim a gigapixel canvas (a decompression bomb); 50 megapixels is a generous banner. */
  pixels: 50_000_000,
} as const;

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

// ---- the view ---------------------------------------------------------------------------------------

export const BlogSchema = Type.Object(
  {
    _id: ObjectIdRef,
    title: Type.String({ minLength: 1, maxLength: BLOG_LIMITS.title, description: PLAIN_TEXT }),
    slug: Type.String({ minLength: 1, description: 'URL-friendly, unique, generated from the title' }),
    content: Type.String({ description: SANITISED_HTML }),
    banner: Type.Object(
      {
        url: Type.String({ format: 'uri' }),
        width: Type.Integer({ minimum: 1 }),
        height: Type.Integer({ minimum: 1 }),
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
    createdAt: DateTimeRef,
    updatedAt: DateTimeRef,
    likedByMe: Type.Boolean({ description: 'Whether the signed-in user likes this blog' }),
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
export const BlogPageSchema = pageOf('blogs', componentRef('Blog', BlogSchema));

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

const status = (json: { default?: BlogStatus } = {}) => optional(oneOfField('Status', BLOG_STATUSES, json));

/** The banner: checked by the validators themselves (present, and an image the banner service can decode). */
const banner = documentedField(
  Type.Unsafe<unknown>({
    type: 'string',
    format: 'binary',
    contentMediaType: 'application/octet-stream',
    description: `PNG, JPEG or WebP, at most ${BANNER_LIMITS.bytes / (1024 * 1024)} MB`,
  }),
);

export const createBlogBody = (contentMaxLength: number) =>
  bodyOf({
    title,
    content: content(contentMaxLength),
    status: status({ default: 'draft' }),
    [BANNER_FIELD]: banner,
  });

export const updateBlogBody = (contentMaxLength: number) =>
  bodyOf({
    title: optional(title),
    content: optional(content(contentMaxLength)),
    status: status(),
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
