/** Preview links to drafts (docs/admin-guide.md, "Preview links"): made and revoked by admins, read by anyone holding one. */
import { PREVIEW_NOT_FOUND } from '../services/preview-links';
import { PreviewLinkSchema, PREVIEW_TOKEN_PATTERN, previewLinkBody } from '../schemas/preview';
import {
  BEARER,
  COMMON_RESPONSES,
  JSON_BODY_RESPONSES,
  json,
  ref,
  respond,
  schemaRef,
  withDatabaseResponses,
} from './components';
import type { ContractPart, Paths } from './types';

const TOKEN =
  'eyJiIjoiNmIwMzM1OWEyNGY0MTQyMGJmM2JmYzNmIiwidiI6MCwiZSI6MTc5NTY3NzIwMDAwMH0.c2lnbmF0dXJlLW9mLTQzLWNoYXJhY3RlcnMtaW4tYmFzZTY0dXJs';
const adminOnly = { '401': ref('responses', 'Unauthenticated'), '403': ref('responses', 'Forbidden') };

const previewPaths: Paths = {
  '/blogs/{blogId}/preview-link': {
    post: {
      operationId: 'createPreviewLink',
      tags: ['Blogs'],
      summary: 'A signed, expiring link to a draft, readable without signing in (admin)',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId')],
      requestBody: { required: false, content: json(previewLinkBody.schema, { expiresIn: '2h' }) },
      responses: {
        '201': respond(
          'The link',
          json(schemaRef('PreviewLink'), {
            url: `https://api.blog.example/api/v1/blogs/preview/${TOKEN}`,
            siteUrl: `https://blog.example/preview?token=${TOKEN}`,
            token: TOKEN,
            expiresAt: '2026-11-25T12:00:00.000Z',
          }),
        ),
        '400': ref('responses', 'BadRequestOrValidation'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'revokePreviewLinks',
      tags: ['Blogs'],
      summary: 'Revoke every preview link of a post (admin)',
      security: BEARER,
      parameters: [ref('parameters', 'BlogId')],
      responses: {
        '204': respond('Revoked; no body'),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/blogs/preview/{token}': {
    get: {
      operationId: 'readPreview',
      tags: ['Blogs'],
      summary: 'The draft a preview link names, without signing in',
      description:
        'Answers with `Cache-Control: private, no-store` and `X-Robots-Tag: noindex`, counts no view. Every link that ' +
        'does not hold (expired, forged, revoked, or its post published, trashed or deleted) answers the same 404.',
      security: [],
      parameters: [
        {
          name: 'token',
          in: 'path',
          required: true,
          description: 'The token of the link',
          schema: { type: 'string', pattern: PREVIEW_TOKEN_PATTERN },
        },
      ],
      responses: {
        '200': respond('The draft', json(schemaRef('BlogResponse'))),
        '404': respond(
          'No draft for this link (NotFound)',
          json(schemaRef('Error'), { code: 'NotFound', message: PREVIEW_NOT_FOUND }),
        ),
        ...COMMON_RESPONSES,
      },
    },
  },
};

/** Every operation uses the database. */
export const previewContract: ContractPart = {
  paths: withDatabaseResponses(previewPaths),
  schemas: { PreviewLink: PreviewLinkSchema },
  tags: [],
};
