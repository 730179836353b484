/** A page of a list: how many items and how many to skip, with the defaults every list applies. */
import { PAGINATION } from '../schemas/common';

export interface Page {
  limit: number;
  offset: number;
}

/** The page asked for (validated integers, or absent), with the defaults filled in. */
export function pageOf(data: Record<string, unknown>): Page {
  return {
    limit: typeof data.limit === 'number' ? data.limit : PAGINATION.defaultLimit,
    offset: typeof data.offset === 'number' ? data.offset : PAGINATION.defaultOffset,
  };
}
