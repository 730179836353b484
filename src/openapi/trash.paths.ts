/** /trash: blogs deleted without permanent=true, to list, restore, purge or empty (admin; docs/admin-guide.md). */
import { TrashedBlogSchema, TrashPageSchema } from '../schemas/trash';
import { BEARER, COMMON_RESPONSES, json, ref, respond, schemaRef, withDatabaseResponses } from './components';
import type { ContractPart, Paths } from './types';

const adminOnly = { '401': ref('responses', 'Unauthenticated'), '403': ref('responses', 'Forbidden') };
const blogId = ref('parameters', 'BlogId');

const trashPaths: Paths = {
  '/trash/': {
    get: {
      operationId: 'listTrash',
      tags: ['Trash'],
      summary: 'Blogs in the trash, last trashed first, as cards (admin)',
      security: BEARER,
      parameters: [ref('parameters', 'Limit'), ref('parameters', 'Offset')],
      responses: {
        '200': respond('One page of trashed blogs', json(schemaRef('TrashPage'))),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'emptyTrash',
      tags: ['Trash'],
      summary: 'Purge every trashed blog with its banner, comments and likes (admin)',
      security: BEARER,
      responses: { '204': respond('Emptied; no body'), ...adminOnly, ...COMMON_RESPONSES },
    },
  },
  '/trash/{blogId}/restore': {
    post: {
      operationId: 'restoreBlog',
      tags: ['Trash'],
      summary: 'Put a trashed blog back, with its comments, likes and counters (admin)',
      description:
        'A fresh slug is given when another blog took its own meanwhile; a blog not in the trash answers 400.',
      security: BEARER,
      parameters: [blogId],
      responses: {
        '200': respond('The blog, back', json(schemaRef('BlogResponse'))),
        '400': ref('responses', 'BadRequestOrValidation'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/trash/{blogId}': {
    delete: {
      operationId: 'purgeBlog',
      tags: ['Trash'],
      summary: 'Purge one trashed blog with its banner, comments and likes (admin)',
      security: BEARER,
      parameters: [blogId],
      responses: {
        '204': respond('Purged; no body'),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
  },
};

/** Every operation of /trash uses the database. */
export const trashContract: ContractPart = {
  paths: withDatabaseResponses(trashPaths),
  schemas: { TrashedBlog: TrashedBlogSchema, TrashPage: TrashPageSchema },
  tags: [{ name: 'Trash', description: 'Deleted blogs kept for TRASH_RETENTION_DAYS, to restore or purge' }],
};
