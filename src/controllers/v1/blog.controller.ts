/** /blogs: reading blogs as the viewer may, and publishing them (admins, multipart forms). */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import type { Config } from '../../config';
import { signedInUser, viewerOf } from '../../lib/request-locals';
import { BANNER_FIELD, type BlogFields, type BlogSortKey, type BlogStatus } from '../../schemas/blog';
import type { BannerInput, BlogService } from '../../services/blog.service';
import { pageOf } from '../../services/pagination';
import type { TrashService } from '../../services/trash.service';

/**
 * The form's fields as validated (those of src/schemas/blog.ts, stored as they are, and the update's
 * slug switch); the banner comes as a file, never as a field.
 */
function formOf<T>(req: Request): T {
  const { [BANNER_FIELD]: _banner, ...fields } = matchedData(req, { locations: ['body'] });
  return fields as T;
}

/** A list's filters, search, order and cursor as validated (tag normalised, dates as Dates), and whether it asks for cards. */
const listQueryOf = (data: Record<string, unknown>) => ({
  tag: data.tag as string | undefined,
  q: data.q as string | undefined,
  card: data.fields === 'card',
  sort: data.sort as BlogSortKey | undefined,
  status: data.status as BlogStatus | undefined,
  authorId: data.author as string | undefined,
  publishedAfter: data.publishedAfter as Date | undefined,
  publishedBefore: data.publishedBefore as Date | undefined,
  cursor: data.cursor as string | undefined,
  count: data.count !== false,
});

export function createBlogController({
  blogs,
  trash,
  config,
}: {
  blogs: BlogService;
  trash: TrashService;
  config: Config;
}) {
  /** The uploaded banner, when the validators found one, proved it an image and re-encoded it (res.locals.banner). */
  function bannerOf(req: Request, res: Response): BannerInput | undefined {
    const image = res.locals.banner;
    if (!req.file || !image) return undefined;
    // the re-encoded pixels, never the uploaded bytes; links from the configuration, never from the Host header
    return { data: image.data, image, baseUrl: config.publicUrl };
  }

  return {
    async listBlogs(req: Request, res: Response) {
      const data = matchedData(req);
      const { limit, offset } = pageOf(data);
      const { authorId, ...query } = listQueryOf(data);
      const page = await blogs.listBlogs(viewerOf(res), {
        limit,
        offset,
        ...query,
        authorIds: authorId ? [authorId] : [],
      });
      res.json({ limit, offset, ...page });
    },

    async listBlogsOfUser(req: Request, res: Response) {
      const data = matchedData(req);
      const { limit, offset } = pageOf(data);
      const { authorId, ...query } = listQueryOf(data);
      // the path names the author; an `author` parameter as well must be the same one, or nothing matches
      const authorIds = [data.userId as string, ...(authorId ? [authorId] : [])];
      const page = await blogs.listBlogs(viewerOf(res), { limit, offset, ...query, authorIds });
      res.json({ limit, offset, ...page });
    },

    async listTags(req: Request, res: Response) {
      const { limit, offset } = pageOf(matchedData(req));
      res.json({ limit, offset, ...(await blogs.listTags(viewerOf(res), { limit, offset })) });
    },

    async getBlog(req: Request, res: Response) {
      // a HEAD (a link checker, a crawler's probe) reads no post: it counts no view
      const countsView = req.method !== 'HEAD';
      res.json({ blog: await blogs.readBlogBySlug(matchedData(req).slug, viewerOf(res), { countsView }) });
    },

    async createBlog(req: Request, res: Response) {
      const { status = 'draft', ...fields } = formOf<BlogFields>(req);
      const blog = await blogs.createBlog(signedInUser(res), { ...fields, status, banner: bannerOf(req, res)! });
      res.status(201).json({ blog });
    },

    async updateBlog(req: Request, res: Response) {
      const { regenerate_slug, ...fields } = formOf<Partial<BlogFields> & { regenerate_slug?: boolean }>(req);
      const blog = await blogs.updateBlog(
        matchedData(req).blogId,
        { ...fields, regenerateSlug: regenerate_slug, banner: bannerOf(req, res) },
        signedInUser(res),
      );
      res.json({ blog });
    },

    /** To the trash, or at once with `permanent=true` (the interface's delete: banner, comments and likes go too). */
    async deleteBlog(req: Request, res: Response) {
      const { blogId, permanent } = matchedData(req);
      if (permanent) await blogs.deleteBlog(blogId);
      else await trash.trash(blogId, signedInUser(res));
      res.sendStatus(204);
    },
  };
}
