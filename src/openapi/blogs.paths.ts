/** /blogs, /likes and /comments: blog posts with their banners, likes and comments. */
import {
  BEARER,
  CACHE_HEADERS,
  COMMON_RESPONSES,
  EXAMPLE_ID,
  JSON_BODY_RESPONSES,
  NOT_MODIFIED,
  sentence,
  exampleAuthorCard,
  examplePublicUser,
  json,
  ref,
  respond,
  schemaRef,
  withDatabaseResponses,
} from './components';
import { DEFAULT_BLOG_CONTENT_MAX_LENGTH } from '../config';
import {
  BANNER_FIELD,
  BANNER_LIMITS,
  BLOG_LIST_PARAMETERS,
  BLOG_LIST_QUERY,
  BlogCardPageSchema,
  BlogCardSchema,
  BlogPageSchema,
  BlogResponseSchema,
  BlogSchema,
  SnippetSchema,
  TagCountSchema,
  TagPageSchema,
  cardImageOf,
  createBlogBody,
  updateBlogBody,
} from '../schemas/blog';
import {
  CommentPageSchema,
  CommentResponseSchema,
  CommentSchema,
  LikesCountSchema,
  ModeratedCommentPageSchema,
  ModeratedCommentSchema,
  newCommentBody,
} from '../schemas/comment';
import { PERMANENT_QUERY } from '../schemas/trash';
import type { ContractPart, JsonSchema, Paths, ResponseObject } from './types';

const exampleBlog = {
  _id: EXAMPLE_ID,
  title: 'Hello, world',
  slug: 'hello-world',
  content: '<p>First post</p>',
  excerpt: 'First post',
  readingTime: 1,
  tags: ['news'],
  banner: {
    url: 'http://localhost:3000/uploads/banners/6b03359a.webp',
    width: 1200,
    height: 630,
    variants: [320, 640, 1200].map((width) => ({
      url: `http://localhost:3000/uploads/banners/6b03359a.webp.${width}w.webp`,
      width,
      height: Math.round((630 * width) / 1200),
      format: 'webp',
    })),
  },
  author: examplePublicUser,
  viewsCount: 0,
  likesCount: 0,
  commentsCount: 0,
  status: 'published',
  publishedAt: '2026-11-22T18:34:02.263Z',
  createdAt: '2026-11-22T18:34:02.263Z',
  updatedAt: '2026-11-22T18:34:02.263Z',
  likedByMe: false,
};
/** The example blog as a card lists it to a reader: one image, the author's name, no content or status. */
function cardOf(example: typeof exampleBlog) {
  const { _id, title, slug, excerpt, readingTime, tags, banner, likesCount, commentsCount } = example;
  const { publishedAt, likedByMe } = example;
  return {
    _id,
    title,
    slug,
    excerpt,
    readingTime,
    tags,
    banner: cardImageOf(banner),
    author: exampleAuthorCard,
    likesCount,
    commentsCount,
    publishedAt,
    likedByMe,
  };
}
const exampleComment = {
  _id: EXAMPLE_ID,
  blog: EXAMPLE_ID,
  author: examplePublicUser,
  content: 'Nice post!',
  createdAt: '2026-11-22T18:34:02.263Z',
  updatedAt: '2026-11-22T18:34:02.263Z',
};

const blogSchemas: Record<string, JsonSchema> = {
  Blog: { ...BlogSchema, example: exampleBlog },
  BlogResponse: BlogResponseSchema,
  BlogPage: BlogPageSchema,
  BlogCard: { ...BlogCardSchema, example: cardOf(exampleBlog) },
  BlogCardPage: BlogCardPageSchema,
  Snippet: { ...SnippetSchema, example: { text: 'First post', matches: [[6, 10]] } },
  TagCount: TagCountSchema,
  TagPage: TagPageSchema,
  Comment: { ...CommentSchema, example: exampleComment },
  CommentResponse: CommentResponseSchema,
  CommentPage: CommentPageSchema,
  ModeratedComment: {
    ...ModeratedCommentSchema,
    example: { ...exampleComment, blog: { _id: EXAMPLE_ID, title: 'Hello, world', slug: 'hello-world' } },
  },
  ModeratedCommentPage: ModeratedCommentPageSchema,
  LikesCount: LikesCountSchema,
};

/** The forms as documented: content's bound is the default of BLOG_CONTENT_MAX_LENGTH. */
const createForm = createBlogBody(DEFAULT_BLOG_CONTENT_MAX_LENGTH).schema;
const updateForm = updateBlogBody(DEFAULT_BLOG_CONTENT_MAX_LENGTH).schema;
const multipart = (schema: JsonSchema) => ({
  'multipart/form-data': { schema, encoding: { [BANNER_FIELD]: { contentType: 'image/png, image/jpeg, image/webp' } } },
});

const unauthenticated = { '401': ref('responses', 'Unauthenticated') };
const adminOnly = { ...unauthenticated, '403': ref('responses', 'Forbidden') };
/** Writes others see: the admin's right, and with EMAIL_VERIFICATION=required a verified email. */
const verifiedAdminOnly = { ...unauthenticated, '403': ref('responses', 'ForbiddenOrUnverified') };
const verifiedOnly = { '403': ref('responses', 'Unverified') };
const validation = { '400': ref('responses', 'ValidationFailed') };
const badRequestOrValidation = { '400': ref('responses', 'BadRequestOrValidation') };
const malformedFormOrValidation = {
  '400': respond(
    'A field or the banner was rejected (ValidationError), or the multipart body is malformed (BadRequest)',
    json({ anyOf: [schemaRef('ValidationError'), schemaRef('Error')] }),
  ),
};
const notFound = (what: string): ResponseObject =>
  respond(`No such ${what} (NotFound)`, json(schemaRef('Error'), { code: 'NotFound', message: `${what} not found` }));
const fileTooLarge = respond(
  `The banner is larger than ${BANNER_LIMITS.bytes / (1024 * 1024)} MB`,
  json(schemaRef('Error'), { code: 'ValidationError', message: 'Banner image must be at most 2 MB' }),
);
const storageDown = respond(
  'The media storage failed; try again later',
  json(schemaRef('Error'), { code: 'ServerError', message: 'Banner storage is unavailable, please try again later' }),
);
const blogOk = (description: string, headers?: ResponseObject['headers']) =>
  respond(description, json(schemaRef('BlogResponse'), { blog: exampleBlog }), { headers });
/** The answers of the cacheable reads (middlewares/public-cache.ts): with their cache headers, or a 304. */
const cached = (ok: ResponseObject) => ({ '200': ok, '304': NOT_MODIFIED });
const blogPage = respond(
  'One page of blogs, newest first unless `sort` says otherwise; non-admins see only published ones. With `fields=card`, ' +
    'BlogCards (no `content`, one image, the author by name); with `q`, the matches (title matches first unless `sort` is given), each with a `snippet`. ' +
    '`nextCursor` asks for the next page',
  json(
    { anyOf: [schemaRef('BlogPage'), schemaRef('BlogCardPage')] },
    { limit: 20, offset: 0, total: 1, blogs: [exampleBlog], nextCursor: null },
  ),
  { headers: CACHE_HEADERS.publicWhenAnonymous },
);
const paging = [ref('parameters', 'Limit'), ref('parameters', 'Offset')];
const LIST_EXAMPLES: Record<(typeof BLOG_LIST_PARAMETERS)[number], unknown> = {
  tag: 'news',
  q: 'first post',
  fields: 'card',
  sort: '-publishedAt',
  status: 'published',
  author: EXAMPLE_ID,
  publishedAfter: '2026-01-01T00:00:00Z',
  publishedBefore: '2026-12-31T23:59:59Z',
  cursor: 'WyJ…',
  count: 'false',
};
const listQuery = BLOG_LIST_PARAMETERS.map((name) => ({
  name,
  in: 'query' as const,
  description: `${sentence(BLOG_LIST_QUERY[name].schema.description)} Give it at most once.`,
  schema: BLOG_LIST_QUERY[name].schema,
  example: LIST_EXAMPLES[name],
}));
/** The PUBLIC_READS operator option, on the four reading operations. */
const PUBLIC_READS_NOTE =
  'Needs a Bearer token by default. Operator option: with `PUBLIC_READS=true` on the server, this read also works ' +
  'without an Authorization header, as an anonymous visitor: published blogs only (never drafts), `likedByMe` false, ' +
  'authors without email. A token that is sent still counts, and an invalid one still answers 401.';
/** HTTP caching (middlewares/public-cache.ts), on the three blog reads, the tags and a blog's comments. */
const CACHED_READ_NOTE =
  `${PUBLIC_READS_NOTE} Anonymous answers carry \`Cache-Control: public, max-age=60, stale-while-revalidate=300\` ` +
  '(or the durations PUBLIC_READS gives) and a weak ETag (If-None-Match → 304 while the answer is unchanged; a ' +
  'slug read counts a view, so its ETag changes at every read that reaches the server, and a read a cache answers ' +
  'counts none); signed-in answers `Cache-Control: private`. Both vary on Authorization.';
const deleted = respond('Deleted; no body');

const blogPaths: Paths = {
  '/blogs/': {
    get: {
      operationId: 'listBlogs',
      description: CACHED_READ_NOTE,
      tags: ['Blogs'],
      summary: 'All blogs, newest first (published only for non-admins)',
      security: BEARER,
      parameters: [...paging, ...listQuery],
      responses: { ...cached(blogPage), ...validation, ...unauthenticated, ...COMMON_RESPONSES },
    },
    post: {
      operationId: 'createBlog',
      tags: ['Blogs'],
      summary: 'Publish or draft a blog with a banner image (admin)',
      security: BEARER,
      requestBody: {
        required: true,
        content: multipart(createForm),
      },
      responses: {
        '201': respond('The new blog', json(schemaRef('BlogResponse'), { blog: exampleBlog }), {
          links: {
            GetBlogBySlug: { operationId: 'getBlogBySlug', parameters: { slug: '$response.body#/blog/slug' } },
            UpdateBlog: { operationId: 'updateBlog', parameters: { blogId: '$response.body#/blog/_id' } },
            DeleteBlog: { operationId: 'deleteBlog', parameters: { blogId: '$response.body#/blog/_id' } },
            LikeBlog: { operationId: 'likeBlog', parameters: { blogId: '$response.body#/blog/_id' } },
            CommentOnBlog: { operationId: 'createComment', parameters: { blogId: '$response.body#/blog/_id' } },
          },
        }),
        ...malformedFormOrValidation,
        ...verifiedAdminOnly,
        '413': fileTooLarge,
        '502': storageDown,
        ...COMMON_RESPONSES,
      },
    },
  },
  '/blogs/user/{userId}': {
    get: {
      operationId: 'listBlogsOfUser',
      description: CACHED_READ_NOTE,
      tags: ['Blogs'],
      summary: 'Blogs of one author, newest first (an unknown author has none)',
      security: BEARER,
      parameters: [ref('parameters', 'UserId'), ...paging, ...listQuery],
      responses: { ...cached(blogPage), ...validation, ...unauthenticated, ...COMMON_RESPONSES },
    },
  },
  '/blogs/{slug}': {
    get: {
      operationId: 'getBlogBySlug',
      description: CACHED_READ_NOTE,
      tags: ['Blogs'],
      summary: 'One blog by its slug; counts a view when published',
      security: BEARER,
      parameters: [
        { name: 'slug', in: 'path', required: true, schema: { type: 'string', minLength: 1 }, example: 'hello-world' },
      ],
      responses: {
        ...cached(blogOk('The blog', CACHE_HEADERS.publicWhenAnonymous)),
        ...unauthenticated,
        '404': notFound('Blog'),
        ...COMMON_RESPONSES,
      },
    },
  },
  // OpenAPI counts /blogs/{slug} and /blogs/{blogId} as the same templated path; they stay apart
  // because they mirror the routes (GET by slug, PUT and DELETE by id), and the drift test compares
  // the names. Ajv's OpenAPI 3.1 schema, schemathesis and Swagger UI accept the pair.
  '/blogs/{blogId}': {
    put: {
      operationId: 'updateBlog',
      tags: ['Blogs'],
      summary: 'Change a blog; a new banner replaces the old one (admin)',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId')],
      requestBody: {
        required: false,
        content: multipart(updateForm),
      },
      responses: {
        '200': blogOk('The updated blog'),
        ...malformedFormOrValidation,
        ...verifiedAdminOnly,
        '404': notFound('Blog'),
        '413': fileTooLarge,
        '502': storageDown,
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'deleteBlog',
      tags: ['Blogs'],
      summary: 'Delete a blog: to the trash, or at once with its banner, likes and comments (admin)',
      description:
        'Without `permanent=true` the blog goes to the trash (`/trash`): gone for readers at once, restorable with ' +
        'its comments, likes and counters, purged after TRASH_RETENTION_DAYS.',
      security: BEARER,
      parameters: [
        ref('parameters', 'BlogId'),
        {
          name: 'permanent',
          in: 'query',
          description: PERMANENT_QUERY.schema.description,
          schema: PERMANENT_QUERY.schema,
        },
      ],
      responses: { '204': deleted, ...validation, ...adminOnly, '404': notFound('Blog'), ...COMMON_RESPONSES },
    },
  },
};

const tagPaths: Paths = {
  '/tags/': {
    get: {
      operationId: 'listTags',
      description: CACHED_READ_NOTE,
      tags: ['Blogs'],
      summary: 'Tags with how many blogs carry each, most used first (published blogs only for non-admins)',
      security: BEARER,
      parameters: paging,
      responses: {
        ...cached(
          respond(
            'One page of tags',
            json(schemaRef('TagPage'), { limit: 20, offset: 0, total: 1, tags: [{ name: 'news', count: 1 }] }),
            { headers: CACHE_HEADERS.publicWhenAnonymous },
          ),
        ),
        ...validation,
        ...unauthenticated,
        ...COMMON_RESPONSES,
      },
    },
  },
};

const likePaths: Paths = {
  '/likes/blog/{blogId}': {
    post: {
      operationId: 'likeBlog',
      tags: ['Likes'],
      summary: 'Like a blog; answers the new likes count',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId')],
      responses: {
        '200': respond('Liked', json(schemaRef('LikesCount'), { likesCount: 1 }), {
          links: { UnlikeBlog: { operationId: 'unlikeBlog', parameters: { blogId: '$request.path.blogId' } } },
        }),
        '400': respond(
          'Already liked (BadRequest), or a malformed id (ValidationError)',
          json({ anyOf: [schemaRef('ValidationError'), schemaRef('Error')] }),
        ),
        ...unauthenticated,
        ...verifiedOnly,
        '404': notFound('Blog'),
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'unlikeBlog',
      tags: ['Likes'],
      summary: 'Take a like back',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId')],
      responses: {
        '204': respond('Unliked; no body'),
        '400': respond(
          'Not liked (BadRequest), or a malformed id (ValidationError)',
          json({ anyOf: [schemaRef('ValidationError'), schemaRef('Error')] }),
        ),
        ...unauthenticated,
        '404': notFound('Blog'),
        ...COMMON_RESPONSES,
      },
    },
  },
};

const commentPaths: Paths = {
  '/comments/': {
    get: {
      operationId: 'listAllComments',
      tags: ['Comments'],
      summary: "Every comment on every blog, newest first, with its blog's _id, title and slug (admin; for moderation)",
      security: BEARER,
      parameters: paging,
      responses: {
        '200': respond(
          'One page of comments',
          json(schemaRef('ModeratedCommentPage'), {
            limit: 20,
            offset: 0,
            total: 1,
            comments: [{ ...exampleComment, blog: { _id: EXAMPLE_ID, title: 'Hello, world', slug: 'hello-world' } }],
          }),
          {
            links: {
              DeleteComment: {
                operationId: 'deleteComment',
                parameters: { commentId: '$response.body#/comments/0/_id' },
              },
            },
          },
        ),
        ...validation,
        ...adminOnly,
        ...COMMON_RESPONSES,
      },
    },
  },
  '/comments/blog/{blogId}': {
    post: {
      operationId: 'createComment',
      tags: ['Comments'],
      summary: 'Comment on a blog',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId')],
      requestBody: {
        required: true,
        content: json(newCommentBody.schema, { content: 'Nice post!' }),
      },
      responses: {
        '201': respond('The new comment', json(schemaRef('CommentResponse'), { comment: exampleComment }), {
          links: {
            DeleteComment: { operationId: 'deleteComment', parameters: { commentId: '$response.body#/comment/_id' } },
          },
        }),
        ...badRequestOrValidation,
        ...unauthenticated,
        ...verifiedOnly,
        '404': notFound('Blog'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
      },
    },
    get: {
      operationId: 'listComments',
      description: CACHED_READ_NOTE,
      tags: ['Comments'],
      summary: 'Comments on a blog, newest first',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId'), ...paging],
      responses: {
        ...cached(
          respond(
            'One page of comments',
            json(schemaRef('CommentPage'), { limit: 20, offset: 0, total: 1, comments: [exampleComment] }),
            { headers: CACHE_HEADERS.publicWhenAnonymous },
          ),
        ),
        ...validation,
        ...unauthenticated,
        '404': notFound('Blog'),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/comments/{commentId}': {
    delete: {
      operationId: 'deleteComment',
      tags: ['Comments'],
      summary: 'Delete a comment (its author or an admin)',
      security: BEARER,
      parameters: [ref('parameters', 'CommentId')],
      responses: {
        '204': deleted,
        ...validation,
        ...unauthenticated,
        '403': respond("Neither the comment's author nor an admin (AuthorizationError)", json(schemaRef('Error'))),
        '404': notFound('Comment'),
        ...COMMON_RESPONSES,
      },
    },
  },
};

/** Blogs, likes and comments; every one of their operations uses the database. */
export const blogContract: ContractPart = {
  paths: withDatabaseResponses({ ...blogPaths, ...tagPaths, ...likePaths, ...commentPaths }),
  schemas: blogSchemas,
  tags: [
    { name: 'Blogs', description: 'Blog posts with banner images' },
    { name: 'Likes', description: 'Likes of blog posts' },
    { name: 'Comments', description: 'Comments on blog posts' },
  ],
};
