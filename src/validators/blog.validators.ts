/** express-validator chains for /blogs and /likes (those of /comments are in comment.validators.ts). */
import { body, param, type CustomValidator } from 'express-validator';
import type { Request } from 'express';
import { BANNER_FIELD, BLOG_LIMITS, BLOG_STATUSES } from '../schemas/blog';
import { sanitizeBlogContent } from '../services/blog-content';
import { inspectBannerImage, InvalidImageError } from '../services/banner-image';
import { objectIdParam, optionalString, pagination, requiredString } from './common.validators';
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
const bannerField = (required: boolean) =>
  required
    ? body(BANNER_FIELD).custom(hasFile).withMessage('Banner image is required').bail().custom(isDecodableImage)
    : body(BANNER_FIELD).custom(isDecodableImage);

const titleLength = { min: 1, max: BLOG_LIMITS.title };
const titleMessage = `Title must be 1 to ${BLOG_LIMITS.title} characters`;
const statusMessage = `Status must be one of: ${BLOG_STATUSES.join(', ')}`;

/** Content is sanitized at the boundary (services/blog-content.ts) and must still say something afterwards. */
const contentField = (chain: ReturnType<typeof optionalString>, maxLength: number) =>
  chain
    .isLength({ min: 1, max: maxLength })
    .withMessage(`Content must be 1 to ${maxLength} characters`)
    .bail()
    .customSanitizer(sanitizeBlogContent)
    .notEmpty()
    .withMessage('Content is empty once scripts and other disallowed HTML are removed');

export const blogIdValidators = [objectIdParam('blogId', 'Blog id')];

export function createBlogValidators(options: { contentMaxLength: number }) {
  return [
    onlyFields(['title', 'content', 'status', BANNER_FIELD]),
    requiredString('title', 'Title').isLength(titleLength).withMessage(titleMessage),
    contentField(requiredString('content', 'Content'), options.contentMaxLength),
    optionalString('status', 'Status').isIn(BLOG_STATUSES).withMessage(statusMessage),
    bannerField(true),
  ];
}

export function updateBlogValidators(options: { contentMaxLength: number }) {
  return [
    onlyFields(['title', 'content', 'status', 'regenerate_slug', BANNER_FIELD]),
    ...blogIdValidators,
    optionalString('title', 'Title').isLength(titleLength).withMessage(titleMessage),
    contentField(optionalString('content', 'Content'), options.contentMaxLength),
    optionalString('status', 'Status').isIn(BLOG_STATUSES).withMessage(statusMessage),
    optionalString('regenerate_slug', 'regenerate_slug')
      .isIn(['true', 'false'])
      .withMessage('regenerate_slug must be "true" or "false"')
      .bail()
      .toBoolean(true),
    bannerField(false),
  ];
}

export const listBlogsValidators = pagination;
export const listBlogsOfUserValidators = [objectIdParam('userId', 'User id'), ...pagination];
export const blogSlugValidators = [
  param('slug').isLength({ min: 1, max: 200 }).withMessage('Slug must be 1 to 200 characters'),
];
