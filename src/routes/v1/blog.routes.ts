import { Router } from 'express';
import { createBlogController } from '../../controllers/v1/blog.controller';
import { createPreviewController } from '../../controllers/v1/preview.controller';
import { authorize } from '../../middlewares/authorize';
import { authenticateUnlessPublicRead } from '../../middlewares/optional-authenticate';
import { publicWhenAnonymous } from '../../middlewares/public-cache';
import { uploadBanner } from '../../middlewares/upload';
import { validate } from '../../middlewares/validate';
import { noBody } from '../../validators/common.validators';
import {
  blogIdValidators,
  blogSlugValidators,
  createBlogValidators,
  createPreviewLinkValidators,
  deleteBlogValidators,
  listBlogsOfUserValidators,
  listBlogsValidators,
  listTagsValidators,
  previewTokenValidators,
  updateBlogValidators,
} from '../../validators/blog.validators';
import type { RouteDeps } from './deps';

export function blogRoutes(deps: RouteDeps): Router {
  const blogs = createBlogController(deps);
  const limits = deps.config.blogs;
  // one multipart parser for both forms
  const upload = uploadBanner(limits);
  const router = Router();
  // reads may be anonymous when the operator turns PUBLIC_READS on; writes always need a token
  router.use(authenticateUnlessPublicRead(deps.authenticate, deps.config.publicReads));
  // the three reads below: cacheable by anyone when anonymous, private when signed in
  router.use(publicWhenAnonymous(deps.config.publicCache));
  router.get('/', listBlogsValidators, validate, blogs.listBlogs);
  router.post(
    '/',
    authorize('blogs:manage'),
    deps.verifiedEmail,
    upload,
    createBlogValidators(limits),
    validate,
    blogs.createBlog,
  );
  router.get('/user/:userId', listBlogsOfUserValidators, validate, blogs.listBlogsOfUser);
  router.get('/:slug', blogSlugValidators, validate, blogs.getBlog);
  router.put(
    '/:blogId',
    authorize('blogs:manage'),
    deps.verifiedEmail,
    upload,
    updateBlogValidators(limits),
    validate,
    blogs.updateBlog,
  );
  router.delete('/:blogId', authorize('blogs:manage'), deleteBlogValidators, noBody, validate, blogs.deleteBlog);
  return router;
}

/** /tags: the tags of the blogs the viewer may read, with their counts; read like the blogs. */
export function tagRoutes(deps: RouteDeps): Router {
  const blogs = createBlogController(deps);
  const router = Router();
  router.use(authenticateUnlessPublicRead(deps.authenticate, deps.config.publicReads));
  router.use(publicWhenAnonymous(deps.config.publicCache));
  router.get('/', listTagsValidators, validate, blogs.listTags);
  return router;
}

/**
 * Preview links, mounted before the blogs' router: reading a draft by its link needs no token whatever
 * PUBLIC_READS says; making and revoking links are the admins'.
 */
export function previewRoutes(deps: RouteDeps): Router {
  const previews = createPreviewController(deps);
  const router = Router();
  router.get('/preview/:token', previewTokenValidators, validate, previews.read);
  const admins = [deps.authenticate, authorize('blogs:manage')];
  router.post('/:blogId/preview-link', ...admins, createPreviewLinkValidators, validate, previews.create);
  router.delete('/:blogId/preview-link', ...admins, blogIdValidators, noBody, validate, previews.revoke);
  return router;
}
