/**
 * express-validator chains for /blogs and /likes (those of /comments are in comment.validators.ts).
 * The forms' fields and their rules are src/schemas/blog.ts's; here they get the steps that need a
 * service: sanitizing the content and decoding the banner.
 */
import { checkSchema, param, type CustomValidator, type ParamSchema, type Schema } from 'express-validator';
import type { Request } from 'express';
import { BANNER_FIELD, BLOG_LIST_QUERY, createBlogBody, updateBlogBody } from '../schemas/blog';
import { previewLinkBody } from '../schemas/preview';
import { PERMANENT_QUERY } from '../schemas/trash';
import { sanitizeBlogContent } from '../services/blog-content';
import { isSearchable } from '../services/blog-search';
import { inspectBannerImage, InvalidImageError } from '../services/banner-image';
import {
  jsonContentType,
  jsonObjectBody,
  objectIdParam,
  optionalQuery,
  PAGE_RULES,
  pagination,
} from './common.validators';
import { onlyFields } from './unknown-fields';

/**
 * The uploaded file must be an image the banner service can decode (services/banner-image.ts). What it
 * found, the re-encoded image, goes to `res.locals.banner` for the controller.
 */
const isDecodableImage: CustomValidator = async (_value, { req }) => {
  const request = req as Request;
  if (!request.file) return true;
  try {
    request.res!.locals.banner = await inspectBannerImage(request.file.buffer);
  } catch (error) {
    if (error instanceof InvalidImageError) throw new Error(error.message, { cause: error });
    throw error;
  }
  return true;
};

const hasFile: CustomValidator = (_value, { req }) => (req as Request).file !== undefined;

/**
 * The uploaded banner: present when `required`, and a decodable image. Reported like any other field
 * (`banner_image`, location `body`), so a form with several mistakes gets them all at once.
 */
const bannerRules = (required: boolean): ParamSchema<'decodable'> =>
  required
    ? {
        custom: { options: hasFile, errorMessage: 'Banner image is required', bail: true },
        decodable: { custom: isDecodableImage },
      }
    : { custom: { options: isDecodableImage } };

/** A form's rules with the service steps: content sanitized (and still saying something), the banner decoded. */
function formRules(form: { rules: Schema }, bannerRequired: boolean) {
  return checkSchema<'decodable'>(
    {
      ...form.rules,
      content: {
        ...form.rules.content,
        customSanitizer: { options: sanitizeBlogContent },
        notEmpty: { errorMessage: 'Content is empty once scripts and other disallowed HTML are removed' },
      },
      [BANNER_FIELD]: bannerRules(bannerRequired),
    },
    ['body'],
  );
}

export const blogIdValidators = [objectIdParam('blogId', 'Blog id')];
/** DELETE /blogs/{blogId}: to the trash, or at once with `permanent=true`. */
export const deleteBlogValidators = [
  ...blogIdValidators,
  ...checkSchema({ permanent: PERMANENT_QUERY.rules }, ['query']),
];

export function createBlogValidators(options: { contentMaxLength: number }) {
  const form = createBlogBody(options.contentMaxLength);
  return [onlyFields(form.fields), ...formRules(form, true)];
}

export function updateBlogValidators(options: { contentMaxLength: number }) {
  const form = updateBlogBody(options.contentMaxLength);
  return [onlyFields(form.fields), ...blogIdValidators, ...formRules(form, false)];
}

/**
 * A list's page, filters, search, order, cursor and shape of blog (src/schemas/blog.ts BLOG_LIST_QUERY).
 * A search must keep a word once stop words and punctuation are dropped, or it would match everything.
 */
const blogListQuery = optionalQuery({
  ...PAGE_RULES,
  ...Object.fromEntries(Object.entries(BLOG_LIST_QUERY).map(([name, field]) => [name, field.rules])),
  q: {
    ...BLOG_LIST_QUERY.q.rules,
    custom: {
      options: isSearchable,
      errorMessage: 'Search must hold a word to look for: stop words, punctuation and symbols alone are not searched',
    },
  },
});

export const listBlogsValidators = blogListQuery;
export const listBlogsOfUserValidators = [objectIdParam('userId', 'User id'), ...blogListQuery];
export const listTagsValidators = pagination;
export const blogSlugValidators = [
  param('slug').isLength({ min: 1, max: 200 }).withMessage('Slug must be 1 to 200 characters'),
];

/** POST /blogs/{blogId}/preview-link: the id, and an optional lifetime (src/schemas/preview.ts). */
export const createPreviewLinkValidators = [
  jsonContentType,
  jsonObjectBody,
  onlyFields(previewLinkBody.fields),
  ...blogIdValidators,
  ...checkSchema(previewLinkBody.rules, ['body']),
];
/** GET /blogs/preview/{token}: any text; a token that does not hold answers 404, whatever is wrong with it. */
export const previewTokenValidators = [param('token').isString()];
