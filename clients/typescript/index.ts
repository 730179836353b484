/**
 * A typed client of /api/v1 for browser SPAs: openapi-fetch (the runtime) over the types that
 * openapi-typescript generates from our OpenAPI document (./schema.d.ts, `npm run client:generate`).
 * Paths, parameters, bodies and responses are checked by TypeScript against the contract.
 *
 * On top of plain openapi-fetch it does what the interface's "Flow" asks of every client:
 * - every request is sent with `credentials: 'include'`, so the browser stores and sends the
 *   `refreshToken` cookie (it is httpOnly: scripts never see it);
 * - the access token from register, login and refresh is kept in memory (not in localStorage) and sent
 *   as `Authorization: Bearer`; a successful logout forgets it;
 * - on a 401 the client calls POST /auth/refresh-token once (one call shared by concurrent 401s) and, when
 *   that gives a new access token, retries the request once; otherwise the 401 stands.
 *
 *   const api = createBlogApiClient({ baseUrl: 'https://api.example.com/api/v1' });
 *   await api.POST('/auth/login', { body: { email, password } });
 *   const { data, error } = await api.GET('/blogs/', { params: { query: { limit: 10 } } });
 *
 * The refresh cookie only travels when the SPA and the API are same-site (docs/example-spa.md).
 * /healthz and /readyz live at the server's root, outside baseUrl: they are for operators, not SPAs.
 */
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };
/** The document's schemas by name: `Schemas['Blog']`, `Schemas['User']`, ... */
export type Schemas = components['schemas'];

export interface BlogApiClientOptions {
  /** The API's base URL including /api/v1, e.g. http://localhost:3000/api/v1 */
  baseUrl: string;
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathsWith<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;
type RequiredKeys<T> = { [K in keyof T]-?: T extends Record<K, unknown> ? K : never }[keyof T];
/** The body an operation takes, as the document says (`never` when it takes none). */
type BodyOf<Init> = NonNullable<NonNullable<Init> extends { body?: infer B } ? B : never>;
/** Each field of `Given` that `Expected` does not have, typed `never`: sending one is a type error. */
type NoExtraFields<Given, Expected> = { [K in Exclude<keyof Given, keyof Expected>]: never };
/** The init argument: openapi-fetch's, and a body with the document's fields only. */
type StrictInit<Init, Expected> = Init &
  (Init extends { body?: infer Given } ? { body?: NoExtraFields<Given, Expected> } : unknown);

/** The lists of blogs: the document gives their answer as either page (`anyOf`), and `fields` says which. */
type BlogListPath = '/blogs/' | '/blogs/user/{userId}';
/** What only a page of whole blogs has: each blog's content. */
type WholeBlogsPage = { blogs: { content: string }[] };
/** The `fields` parameter of the query sent: its type as written, `undefined` when the query has none. */
type FieldsOf<Init> = Init extends { params: { query?: infer Query } }
  ? 'fields' extends keyof NonNullable<Query>
    ? NonNullable<Query>['fields' & keyof NonNullable<Query>]
    : undefined
  : undefined;
/** Cards for `fields: 'card'`, whole blogs without `fields`, either page when the query may be both. */
type ListPageOf<Page, Fields> = [Fields] extends ['card']
  ? Exclude<Page, WholeBlogsPage>
  : [Fields] extends [undefined]
    ? Extract<Page, WholeBlogsPage>
    : Page;
/** A GET of a list answers the page its query asks for; every other answer is the document's. */
type AnswerOf<Answer, M extends Method, P, Init> = M extends 'get'
  ? P extends BlogListPath
    ? Answer extends { data: infer Page }
      ? Omit<Answer, 'data'> & { data: ListPageOf<Page, FieldsOf<Init>> }
      : Answer
    : Answer
  : Answer;

/**
 * openapi-fetch's method, with two more checks. Its `Init` is a type parameter inferred from the argument,
 * and a type argument is only checked for assignability to its constraint: TypeScript's excess property
 * check applies to an object literal against a known type, never to an inferred one, so
 * `{ body: { email, password, remember: true } }` met the constraint and compiled although the API refuses
 * it (400, unknown field). Here the body's fields are compared with the document's by name. And a list of
 * blogs answers cards or whole blogs as its query says (AnswerOf), not a union a front end must narrow.
 */
type StrictMethod<M extends Method> = <P extends PathsWith<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: RequiredKeys<Init> extends never
    ? [StrictInit<Init, BodyOf<MaybeOptionalInit<paths[P], M>>>?]
    : [StrictInit<Init, BodyOf<MaybeOptionalInit<paths[P], M>>>]
) => Promise<
  paths[P][M] extends infer O extends Record<string | number, unknown>
    ? AnswerOf<FetchResponse<O, Init, `${string}/${string}`>, M, P, Init>
    : never
>;

export type BlogApiClient = Omit<Client<paths>, 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH'> & {
  GET: StrictMethod<'get'>;
  PUT: StrictMethod<'put'>;
  POST: StrictMethod<'post'>;
  DELETE: StrictMethod<'delete'>;
  PATCH: StrictMethod<'patch'>;
  /** The access token held in memory, if any. */
  readonly accessToken: string | undefined;
  /**
   * Asks POST /auth/refresh-token for a new access token with the cookie; true when one was issued.
   * Concurrent callers share one request.
   */
  refreshAccessToken(): Promise<boolean>;
  /** Forgets the access token (the server-side session stays until POST /auth/logout). */
  forgetAccessToken(): void;
};

/**
 * The body serializer for the multipart operations (POST /blogs/, PUT /blogs/{blogId}): fields as they
 * are, an array as one field per item (`tags`) and an empty one as one empty field (which the API reads
 * as none: `tags: []` clears them), files (Blob, File) as parts, undefined fields left out.
 *
 *   await api.POST('/blogs/', { body: { title, content, banner_image: file }, bodySerializer: formDataBody });
 */
export function formDataBody(fields: Record<string, string | string[] | Blob | undefined> | undefined): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields ?? {})) {
    const items = Array.isArray(value) ? (value.length > 0 ? value : ['']) : [value];
    for (const item of items) if (item !== undefined) form.append(name, item);
  }
  return form;
}

/** Operations whose 200/201 body carries a new `accessToken`. */
const ISSUES_ACCESS_TOKEN = new Set(['/auth/register', '/auth/login', '/auth/refresh-token']);
/** A 401 of these is the answer itself (bad credentials, no cookie), not a stale access token. */
const NEVER_RETRIED = new Set(['/auth/register', '/auth/login', '/auth/refresh-token']);

export function createBlogApiClient({ baseUrl, fetch: fetchImpl }: BlogApiClientOptions): BlogApiClient {
  // A bare reference to window.fetch may not be called detached in every browser; wrap it.
  const send = fetchImpl ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({ baseUrl, credentials: 'include', fetch: send });

  let accessToken: string | undefined;
  let refreshing: Promise<boolean> | undefined;
  /** Unsent copies of retryable requests, by openapi-fetch's request id, for the one retry. */
  const copies = new Map<string, Request>();

  function refreshAccessToken(): Promise<boolean> {
    refreshing ??= client
      .POST('/auth/refresh-token')
      .then(({ response }) => response.ok)
      .catch(() => false)
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  }

  const session: Middleware = {
    onRequest({ request, schemaPath, id }) {
      if (accessToken && !request.headers.has('Authorization')) {
        request.headers.set('Authorization', `Bearer ${accessToken}`);
      }
      if (!NEVER_RETRIED.has(schemaPath)) copies.set(id, request.clone());
      return request;
    },

    async onResponse({ response, schemaPath, id }) {
      const copy = copies.get(id);
      copies.delete(id);
      if (response.ok && ISSUES_ACCESS_TOKEN.has(schemaPath)) {
        const body = (await response.clone().json()) as { accessToken?: unknown };
        accessToken = typeof body.accessToken === 'string' ? body.accessToken : undefined;
      }
      if (response.ok && schemaPath === '/auth/logout') accessToken = undefined;
      if (schemaPath === '/auth/refresh-token' && response.status === 401) accessToken = undefined;

      if (response.status !== 401 || !copy) return undefined;
      const usedToken = copy.headers.get('Authorization');
      // Another request may have refreshed meanwhile; otherwise ask for a new token now.
      const renewed = (accessToken && usedToken !== `Bearer ${accessToken}`) || (await refreshAccessToken());
      if (!renewed || !accessToken) return undefined;
      copy.headers.set('Authorization', `Bearer ${accessToken}`);
      return send(copy);
    },

    onError({ id }) {
      copies.delete(id);
    },
  };
  client.use(session);

  // defineProperty, not Object.assign: the getter must stay a getter to show the current token.
  return Object.defineProperties(client, {
    accessToken: { get: () => accessToken, enumerable: true },
    refreshAccessToken: { value: refreshAccessToken, enumerable: true },
    forgetAccessToken: {
      value: () => {
        accessToken = undefined;
      },
      enumerable: true,
    },
  }) as BlogApiClient;
}
