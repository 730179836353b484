/** /blogs, /likes and /comments: blog posts with their banners, likes and comments. */
import {
  BEARER,
  COMMON_RESPONSES,
  EXAMPLE_ID,
  JSON_BODY_RESPONSES,
  examplePublicUser,
  json,
  page,
  ref,
  respond,
  schemaRef,
  withDatabaseResponses,
} from './components';
import { DEFAULT_BLOG_CONTENT_MAX_LENGTH } from '../config';
import { BLOG_LIMITS, BLOG_STATUSES } from '../schemas/blog';
import { COMMENT_LIMITS } from '../schemas/comment';
import { BANNER_LIMITS } from '../services/banner-image';
import type { ContractPart, JsonSchema, Paths, ResponseObject } from './types';

/** The bounds as the models and services define them; content's is the default of BLOG_CONTENT_MAX_LENGTH. */
const LIMITS = {
  title: BLOG_LIMITS.title,
  content: DEFAULT_BLOG_CONTENT_MAX_LENGTH,
  comment: COMMENT_LIMITS.content,
  bannerBytes: BANNER_LIMITS.bytes,
} as const;

const author: JsonSchema = {
  description: 'The full User for admin viewers; a PublicUser (no email) for everyone else',
  anyOf: [schemaRef('User'), schemaRef('PublicUser')],
};

const exampleBlog = {
  _id: EXAMPLE_ID,
  title: 'Hello, world',
  slug: 'hello-world',
  content: '<p>First post</p>',
  banner: { url: 'http://localhost:3000/uploads/banners/6b03359a.webp', width: 1200, height: 630 },
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
const exampleComment = {
  _id: EXAMPLE_ID,
  blog: EXAMPLE_ID,
  author: examplePublicUser,
  content: 'Nice post!',
  createdAt: '2026-11-22T18:34:02.263Z',
  updatedAt: '2026-11-22T18:34:02.263Z',
};

const count: JsonSchema = { type: 'integer', minimum: 0 };

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

const blogSchemas: Record<string, JsonSchema> = {
  Blog: {
    type: 'object',
    required: [
      '_id',
      'title',
      'slug',
      'content',
      'banner',
      'author',
      'viewsCount',
      'likesCount',
      'commentsCount',
      'status',
      'publishedAt',
      'createdAt',
      'updatedAt',
      'likedByMe',
    ],
    additionalProperties: false,
    properties: {
      _id: schemaRef('ObjectId'),
      title: { type: 'string', minLength: 1, maxLength: LIMITS.title, description: PLAIN_TEXT },
      slug: { type: 'string', minLength: 1, description: 'URL-friendly, unique, generated from the title' },
      content: { type: 'string', description: SANITISED_HTML },
      banner: {
        type: 'object',
        required: ['url', 'width', 'height'],
        additionalProperties: false,
        properties: {
          url: { type: 'string', format: 'uri' },
          width: { type: 'integer', minimum: 1 },
          height: { type: 'integer', minimum: 1 },
        },
      },
      author,
      viewsCount: count,
      likesCount: count,
      commentsCount: count,
      status: { type: 'string', enum: [...BLOG_STATUSES] },
      publishedAt: { anyOf: [schemaRef('DateTime'), { type: 'null' }], description: 'null while a draft' },
      createdAt: schemaRef('DateTime'),
      updatedAt: schemaRef('DateTime'),
      likedByMe: { type: 'boolean', description: 'Whether the signed-in user likes this blog' },
    },
    example: exampleBlog,
  },
  BlogResponse: {
    type: 'object',
    required: ['blog'],
    additionalProperties: false,
    properties: { blog: schemaRef('Blog') },
  },
  BlogPage: page('blogs', schemaRef('Blog')),
  Comment: {
    type: 'object',
    required: ['_id', 'blog', 'author', 'content', 'createdAt', 'updatedAt'],
    additionalProperties: false,
    properties: {
      _id: schemaRef('ObjectId'),
      blog: schemaRef('ObjectId'),
      author,
      content: { type: 'string', minLength: 1, maxLength: LIMITS.comment, description: PLAIN_TEXT },
      createdAt: schemaRef('DateTime'),
      updatedAt: schemaRef('DateTime'),
    },
    example: exampleComment,
  },
  CommentResponse: {
    type: 'object',
    required: ['comment'],
    additionalProperties: false,
    properties: { comment: schemaRef('Comment') },
  },
  CommentPage: page('comments', schemaRef('Comment')),
  ModeratedComment: {
    type: 'object',
    description:
      'A comment as moderators list it: with the _id, title and slug of its blog (null for a blog deleted a moment ago)',
    required: ['_id', 'blog', 'author', 'content', 'createdAt', 'updatedAt'],
    additionalProperties: false,
    properties: {
      _id: schemaRef('ObjectId'),
      blog: {
        anyOf: [
          {
            type: 'object',
            required: ['_id', 'title', 'slug'],
            additionalProperties: false,
            properties: { _id: schemaRef('ObjectId'), title: { type: 'string' }, slug: { type: 'string' } },
          },
          { type: 'null' },
        ],
      },
      author,
      content: { type: 'string', minLength: 1, maxLength: LIMITS.comment },
      createdAt: schemaRef('DateTime'),
      updatedAt: schemaRef('DateTime'),
    },
    example: { ...exampleComment, blog: { _id: EXAMPLE_ID, title: 'Hello, world', slug: 'hello-world' } },
  },
  ModeratedCommentPage: page('comments', schemaRef('ModeratedComment')),
  LikesCount: {
    type: 'object',
    required: ['likesCount'],
    additionalProperties: false,
    properties: { likesCount: count },
  },
};

const status: JsonSchema = { type: 'string', enum: [...BLOG_STATUSES], default: 'draft' };
const bannerImage: JsonSchema = {
  type: 'string',
  format: 'binary',
  contentMediaType: 'application/octet-stream',
  description: `PNG, JPEG or WebP, at most ${LIMITS.bannerBytes / (1024 * 1024)} MB`,
};
/** Text fields are trimmed before their bounds are checked: blank input is refused. */
const NOT_BLANK = '\\S';
const title: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.title,
  pattern: NOT_BLANK,
  description: `Trimmed. ${PLAIN_TEXT}`,
};
const content: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.content,
  pattern: NOT_BLANK,
  description: `${SANITISED_HTML} Refused when nothing is left once sanitised (only a script, say).`,
};
const multipart = (schema: JsonSchema) => ({
  'multipart/form-data': { schema, encoding: { banner_image: { contentType: 'image/png, image/jpeg, image/webp' } } },
});

const unauthenticated = { '401': ref('responses', 'Unauthenticated') };
const adminOnly = { ...unauthenticated, '403': ref('responses', 'Forbidden') };
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
  `The banner is larger than ${LIMITS.bannerBytes / (1024 * 1024)} MB`,
  json(schemaRef('Error'), { code: 'ValidationError', message: 'Banner image must be at most 2 MB' }),
);
const storageDown = respond(
  'The media storage failed; try again later',
  json(schemaRef('Error'), { code: 'ServerError', message: 'Banner storage is unavailable, please try again later' }),
);
const blogOk = (description: string) => respond(description, json(schemaRef('BlogResponse'), { blog: exampleBlog }));
const blogPage = respond(
  'One page of blogs, newest first; non-admins see only published ones',
  json(schemaRef('BlogPage'), { limit: 20, offset: 0, total: 1, blogs: [exampleBlog] }),
);
const paging = [ref('parameters', 'Limit'), ref('parameters', 'Offset')];
/** The PUBLIC_READS operator option, on the four reading operations. */
const PUBLIC_READS_NOTE =
  'Needs a Bearer token by default. Operator option: with `PUBLIC_READS=true` on the server, this read also works ' +
  'without an Authorization header, as an anonymous visitor: published blogs only (never drafts), `likedByMe` false, ' +
  'authors without email. A token that is sent still counts, and an invalid one still answers 401.';
const deleted = respond('Deleted; no body');

const blogPaths: Paths = {
  '/blogs/': {
    get: {
      operationId: 'listBlogs',
      description: PUBLIC_READS_NOTE,
      tags: ['Blogs'],
      summary: 'All blogs, newest first (published only for non-admins)',
      security: BEARER,
      parameters: paging,
      responses: { '200': blogPage, ...validation, ...unauthenticated, ...COMMON_RESPONSES },
    },
    post: {
      operationId: 'createBlog',
      tags: ['Blogs'],
      summary: 'Publish or draft a blog with a banner image (admin)',
      security: BEARER,
      requestBody: {
        required: true,
        content: multipart({
          type: 'object',
          required: ['title', 'content', 'banner_image'],
          additionalProperties: false,
          properties: { title, content, status, banner_image: bannerImage },
        }),
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
        ...adminOnly,
        '413': fileTooLarge,
        '502': storageDown,
        ...COMMON_RESPONSES,
      },
    },
  },
  '/blogs/user/{userId}': {
    get: {
      operationId: 'listBlogsOfUser',
      description: PUBLIC_READS_NOTE,
      tags: ['Blogs'],
      summary: 'Blogs of one author, newest first (an unknown author has none)',
      security: BEARER,
      parameters: [ref('parameters', 'UserId'), ...paging],
      responses: { '200': blogPage, ...validation, ...unauthenticated, ...COMMON_RESPONSES },
    },
  },
  '/blogs/{slug}': {
    get: {
      operationId: 'getBlogBySlug',
      description: PUBLIC_READS_NOTE,
      tags: ['Blogs'],
      summary: 'One blog by its slug; counts a view when published',
      security: BEARER,
      parameters: [
        { name: 'slug', in: 'path', required: true, schema: { type: 'string', minLength: 1 }, example: 'hello-world' },
      ],
      responses: { '200': blogOk('The blog'), ...unauthenticated, '404': notFound('Blog'), ...COMMON_RESPONSES },
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
        content: multipart({
          type: 'object',
          additionalProperties: false,
          properties: {
            title,
            content,
            status: { type: 'string', enum: [...BLOG_STATUSES] },
            banner_image: bannerImage,
            regenerate_slug: {
              type: 'string',
              enum: ['true', 'false'],
              description: 'Derive the slug again from the (new) title',
            },
          },
        }),
      },
      responses: {
        '200': blogOk('The updated blog'),
        ...malformedFormOrValidation,
        ...adminOnly,
        '404': notFound('Blog'),
        '413': fileTooLarge,
        '502': storageDown,
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'deleteBlog',
      tags: ['Blogs'],
      summary: 'Delete a blog with its banner, likes and comments (admin)',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId')],
      responses: { '204': deleted, ...validation, ...adminOnly, '404': notFound('Blog'), ...COMMON_RESPONSES },
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
        content: json(
          {
            type: 'object',
            required: ['content'],
            additionalProperties: false,
            properties: {
              content: {
                type: 'string',
                minLength: 1,
                maxLength: LIMITS.comment,
                pattern: NOT_BLANK,
                description: `Trimmed. ${PLAIN_TEXT}`,
              },
            },
          },
          { content: 'Nice post!' },
        ),
      },
      responses: {
        '201': respond('The new comment', json(schemaRef('CommentResponse'), { comment: exampleComment }), {
          links: {
            DeleteComment: { operationId: 'deleteComment', parameters: { commentId: '$response.body#/comment/_id' } },
          },
        }),
        ...badRequestOrValidation,
        ...unauthenticated,
        '404': notFound('Blog'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
      },
    },
    get: {
      operationId: 'listComments',
      description: PUBLIC_READS_NOTE,
      tags: ['Comments'],
      summary: 'Comments on a blog, newest first',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId'), ...paging],
      responses: {
        '200': respond(
          'One page of comments',
          json(schemaRef('CommentPage'), { limit: 20, offset: 0, total: 1, comments: [exampleComment] }),
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
  paths: withDatabaseResponses({ ...blogPaths, ...likePaths, ...commentPaths }),
  schemas: blogSchemas,
  tags: [
    { name: 'Blogs', description: 'Blog posts with banner images' },
    { name: 'Likes', description: 'Likes of blog posts' },
    { name: 'Comments', description: 'Comments on blog posts' },
  ],
};
