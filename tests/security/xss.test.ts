/**
 * Known XSS payloads (tests/security/fixtures/xss-payloads.json), kept as data:
 * - as blog content, which is HTML: what is stored and served parses to allow-listed tags and
 *   attributes only, with no event handler, style or script URL left (or the post is refused when
 *   nothing is left);
 * - as comments and titles, which are plain text: they come back exactly as sent, inside JSON that
 *   a browser will not sniff into HTML. Rendering them as text is the client's part (docs/security.md).
 */
import { parseFragment } from 'parse5';
import sanitizeHtml from 'sanitize-html';
import request from 'supertest';
import { expectCleanRefusal, expectDatabaseUnchanged, useTargetApp } from './helpers';
import fixture from './fixtures/xss-payloads.json';

const PAYLOADS: string[] = fixture.payloads;

const { api, admin, reader, published: blog } = useTargetApp();

const ALLOWED_TAGS = new Set([...sanitizeHtml.defaults.allowedTags, 'img']);
const SAFE_SCHEMES = { href: ['http:', 'https:', 'mailto:'], src: ['http:', 'https:'] } as const;

type Node = {
  nodeName: string;
  tagName?: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  content?: Node;
};

/**
 * Everything in `html` that a browser could run: disallowed tags, handlers, styles, script-capable URLs.
 * parse5 parses as a browser does (the HTML standard's algorithm), entities decoded.
 */
function dangersIn(html: string): string[] {
  const dangers: string[] = [];
  const visit = (node: Node) => {
    if (node.tagName) {
      const name = node.tagName;
      if (!ALLOWED_TAGS.has(name)) dangers.push(`tag <${name}>`);
      for (const { name: attribute, value } of node.attrs ?? []) {
        if (/^on/i.test(attribute) || ['style', 'srcdoc', 'formaction', 'background', 'action'].includes(attribute)) {
          dangers.push(`attribute ${attribute} on <${name}>`);
        }
        if (attribute === 'href' || attribute === 'src') {
          // as a browser reads a URL: control characters and spaces ignored (matching them is the point)
          // eslint-disable-next-line no-control-regex
          const url = value.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
          const scheme = /^([a-z][a-z0-9+.-]*):/.exec(url)?.[0];
          if (url.startsWith('//')) dangers.push(`protocol-relative ${attribute}`);
          if (scheme && !(SAFE_SCHEMES[attribute] as readonly string[]).includes(scheme))
            dangers.push(`${scheme} in ${attribute}`);
        }
      }
    }
    for (const child of node.childNodes ?? []) visit(child);
    if (node.content) visit(node.content);
  };
  visit(parseFragment(html) as unknown as Node);
  return dangers;
}

const SENT_AS_DATA = (response: request.Response) => {
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
};

it(`keeps at least 50 payloads (${PAYLOADS.length})`, () => {
  expect(PAYLOADS.length).toBeGreaterThanOrEqual(50);
  expect(new Set(PAYLOADS).size).toBe(PAYLOADS.length);
});

it('recognises the payloads as dangerous before sanitising (the check can fail)', () => {
  const caught = PAYLOADS.filter((payload) => dangersIn(payload).length > 0);
  expect(caught.length).toBeGreaterThanOrEqual(50);
});

describe('as blog content (HTML)', () => {
  it.each(PAYLOADS.map((payload, index) => [index, payload]))(
    'payload %i is stored and served without anything that runs',
    async (_index, payload) => {
      const before = await api.as(admin).get(`/blogs/${blog.slug}`);
      const response = await api.as(admin).put(`/blogs/${blog._id}`).field('content', `<p>intro</p>${payload}`);
      expect(response.status).toBe(200);
      SENT_AS_DATA(response);
      expect(dangersIn(response.body.blog.content)).toEqual([]);

      const served = await api.as(reader).get(`/blogs/${blog.slug}`);
      expect(served.body.blog.content).toBe(response.body.blog.content);
      expect(before.status).toBe(200);
    },
  );

  it('refuses content that is nothing but a script, storing nothing', async () => {
    const response = await expectDatabaseUnchanged(() =>
      api.as(admin).put(`/blogs/${blog._id}`).field('content', '<script>alert(1)</script>'),
    );
    expectCleanRefusal(response, 400);
  });
});

describe('as comments (plain text)', () => {
  it.each(PAYLOADS.map((payload, index) => [index, payload]))(
    'payload %i comes back exactly as sent, as JSON data',
    async (_index, payload) => {
      const response = await api.as(reader).post(`/comments/blog/${blog._id}`).send({ content: payload });
      expect(response.status).toBe(201);
      SENT_AS_DATA(response);
      expect(response.body.comment.content).toBe(payload.trim());
    },
  );

  it('lists them all verbatim', async () => {
    const contents: string[] = [];
    for (let offset = 0; ; offset += 50) {
      const page = await api.as(reader).get(`/comments/blog/${blog._id}?limit=50&offset=${offset}`);
      SENT_AS_DATA(page);
      contents.push(...(page.body.comments as Array<{ content: string }>).map((comment) => comment.content));
      if (page.body.comments.length < 50) break;
    }
    for (const payload of PAYLOADS) expect(contents).toContain(payload.trim());
  });
});

describe('as titles (plain text)', () => {
  it.each(
    PAYLOADS.filter((payload) => payload.trim().length <= 180)
      .slice(0, 20)
      .map((payload, index) => [index, payload]),
  )('title %i comes back exactly as sent; its slug is letters, digits and dashes', async (_index, payload) => {
    const response = await api
      .as(admin)
      .put(`/blogs/${blog._id}`)
      .field('title', payload)
      .field('regenerate_slug', 'true');
    expect(response.status).toBe(200);
    SENT_AS_DATA(response);
    expect(response.body.blog.title).toBe(payload.trim());
    expect(response.body.blog.slug).toMatch(/^[a-z0-9-]+$/);
    blog.slug = response.body.blog.slug;
  });
});
