/**
 * The one place a blog list's filter and order are built, from what the reader asked (tag, author,
 * status, publication dates, sort): a Mongo filter and sort, to which another fragment (a search's)
 * can be merged before the cursor's keyset condition is added. Every filter names `status` (one value,
 * or both for admins), so each list is served by the indexes of models/blog.model.ts that lead with an
 * equality (tags, author) then status, the sort key and _id; see docs/performance.md. One exception, for
 * the page only: an admin's every post in creation order is read on the {createdAt, _id} index alone.
 */
import { Types } from 'mongoose';
import { RequestValidationError } from '../errors/http-errors';
import type { CursorPosition, CursorValue } from '../lib/list-cursor';
import { BLOG_STATUSES } from '../models/blog.model';
import type { BlogSortKey, BlogStatus } from '../schemas/blog';
import { canReadDrafts, type Viewer } from './viewer';

export interface BlogListFilters {
  tag?: string;
  /** The path's author and the `author` parameter: one author when they agree, none when they differ. */
  authorIds?: string[];
  status?: BlogStatus;
  publishedAfter?: Date;
  publishedBefore?: Date;
  sort?: BlogSortKey;
}

export type BlogFilter = Record<string, unknown>;
export interface BlogListPlan {
  /** What the list holds: its total counts it, its cursors are bound to it. */
  filter: BlogFilter;
  /** What a page is read with: the same posts, in terms the best index for the order takes. */
  pageFilter: BlogFilter;
  /** The sort key and its direction; `_id` breaks ties the same way, so the order is total. */
  field: 'createdAt' | 'publishedAt' | 'likesCount' | 'viewsCount';
  direction: 1 | -1;
  sort: Record<string, 1 | -1>;
}

/** An order of blogs: by a field, ties by `_id` the same way; the sort a read takes and the keyset a cursor does. */
export type BlogOrder = Pick<BlogListPlan, 'field' | 'direction' | 'sort'>;

export const blogOrder = (field: BlogOrder['field'], direction: BlogOrder['direction']): BlogOrder => ({
  field,
  direction,
  sort: { [field]: direction, _id: direction },
});

/** The fields that lead a list's index before its status (models/blog.model.ts). */
const INDEX_PREFIXES = new Set(['tags', 'author', 'searchTerms']);

/** The spec's order: creation date, newest first. */
export const DEFAULT_BLOG_SORT: BlogSortKey = '-createdAt';

/** Only those who may read drafts may ask for them; others keep seeing the published ones. */
function statusFilter(viewer: Viewer, status: BlogStatus | undefined) {
  if (!canReadDrafts(viewer)) {
    if (status === 'draft')
      throw RequestValidationError.forField('status', 'Only admins may list drafts', 'query', status);
    return 'published';
  }
  // both statuses named, so the {…, status, key, _id} indexes serve admins too (one merge of two ranges)
  return status ?? { $in: [...BLOG_STATUSES] };
}

function authorFilter(authorIds: string[]) {
  const distinct = [...new Set(authorIds.map((id) => id.toLowerCase()))];
  if (distinct.length === 0) return {};
  return { author: distinct.length === 1 ? new Types.ObjectId(distinct[0]) : { $in: [] } };
}

function publishedRange({ publishedAfter, publishedBefore }: BlogListFilters) {
  if (!publishedAfter && !publishedBefore) return {};
  return {
    publishedAt: {
      ...(publishedAfter ? { $gt: publishedAfter } : {}),
      ...(publishedBefore ? { $lt: publishedBefore } : {}),
    },
  };
}

/** The list's filter and order for this viewer; `extra` (a search's filter) is merged in as is. */
export function buildBlogListQuery(viewer: Viewer, filters: BlogListFilters, extra: BlogFilter = {}): BlogListPlan {
  const key = filters.sort ?? DEFAULT_BLOG_SORT;
  const direction = key.startsWith('-') ? -1 : 1;
  const field = key.replace(/^-/, '') as BlogListPlan['field'];
  const filter: BlogFilter = {
    ...(filters.tag ? { tags: filters.tag } : {}),
    ...authorFilter(filters.authorIds ?? []),
    status: statusFilter(viewer, filters.status),
    ...publishedRange(filters),
    ...extra,
  };
  return { filter, pageFilter: pageFilterOf(filter, field), ...blogOrder(field, direction) };
}

/**
 * Every status named (an admin's list) with nothing before it in an index (no tag, author or search) and in
 * creation order: the {createdAt, _id} index holds that order alone, one range, where {status, createdAt, _id}
 * needs two merged, so the page leaves the status out. The count keeps it: MongoDB counts it on the status
 * index alone (COUNT_SCAN), where a count of everything reads every document.
 */
function pageFilterOf(filter: BlogFilter, field: BlogListPlan['field']): BlogFilter {
  if (field !== 'createdAt' || typeof filter.status === 'string') return filter;
  const { status: _everyStatus, ...rest } = filter;
  return Object.keys(rest).some((key) => INDEX_PREFIXES.has(key)) ? filter : rest;
}

/**
 * What comes after `position` in the plan's order (keyset pagination on sort key and _id): later pages
 * depend only on the last item seen, so posts written meanwhile neither shift nor repeat them. A
 * missing value (a draft's publishedAt) sorts below every other, as MongoDB sorts null.
 */
export function keysetAfter(
  { field, direction }: Pick<BlogListPlan, 'field' | 'direction'>,
  { value, id }: CursorPosition,
): BlogFilter {
  const _id = new Types.ObjectId(id);
  const beyond = direction === 1 ? '$gt' : '$lt';
  if (value === null)
    return direction === 1
      ? { $or: [{ [field]: null, _id: { $gt: _id } }, { [field]: { $ne: null } }] }
      : { [field]: null, _id: { $lt: _id } };
  const later: BlogFilter[] = [{ [field]: { [beyond]: value } }, { [field]: value, _id: { [beyond]: _id } }];
  if (direction === -1) later.push({ [field]: null });
  return { $or: later };
}

/** A plan's page filter with the keyset condition beside any `$and` it has. */
export function withKeyset(
  plan: Pick<BlogListPlan, 'pageFilter' | 'field' | 'direction'>,
  position: CursorPosition | null,
): BlogFilter {
  if (!position) return plan.pageFilter;
  const and = (plan.pageFilter.$and as BlogFilter[] | undefined) ?? [];
  return { ...plan.pageFilter, $and: [...and, keysetAfter(plan, position)] };
}

/** The sort value of a listed blog, as its cursor carries it. */
export function sortValueOf(plan: Pick<BlogListPlan, 'field'>, blog: Record<string, unknown>): CursorValue {
  const value = blog[plan.field];
  if (value instanceof Date || typeof value === 'number') return value;
  return null;
}
