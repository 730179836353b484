// The example SPA's whole logic. The typed client (clients/typescript/, bundled as /client.js by
// serve.js) sends every request with credentials: 'include', keeps the access token in memory, and on
// a 401 calls POST /auth/refresh-token (the httpOnly cookie proves the session) and retries once.
import { createBlogApiClient, formDataBody } from './client.js';
import { API_BASE_URL } from './config.js';

const $ = (selector) => document.querySelector(selector);

// Every request the page makes (refresh and retry included), with its answer, for the reader and the
// browser test to follow.
async function fetchAndList(request) {
  const response = await fetch(request);
  const item = document.createElement('li');
  item.textContent = `${request.method} ${new URL(request.url).pathname} → ${response.status}`;
  $('#calls').append(item);
  return response;
}

const api = createBlogApiClient({ baseUrl: API_BASE_URL, fetch: fetchAndList });

function show(state, text, error) {
  $('#status').dataset.state = state;
  $('#status').textContent = text;
  // The API's error bodies: {code, message}, {code: 'ValidationError', errors: {field: {msg}}}, 429's {error}.
  const detail =
    error &&
    (error.message ??
      error.error ??
      Object.values(error.errors ?? {})
        .map((field) => field.msg)
        .join('; '));
  $('#error').textContent = error ? `${error.code ?? 'Error'}: ${detail}` : '';
  if (state !== 'signed-in') $('#admin').hidden = true;
}

// An error shown without changing the signed-in state.
const report = (error) => show($('#status').dataset.state, $('#status').textContent, error);

// Signed in: admins also get the publishing tools (docs/admin-guide.md).
function signedIn(user) {
  show('signed-in', `Signed in as ${user.username} (${user.email})`);
  $('#admin').hidden = user.role !== 'admin';
  if (user.role === 'admin') loadAdmin();
}

// On load there is no access token in memory: this asks for the current user, and the client
// refreshes through the cookie when a session survives from before the reload.
async function showCurrentUser() {
  const { data, error } = await api.GET('/users/current');
  if (data) signedIn(data.user);
  else show('signed-out', 'Signed out', error?.code === 'AuthenticationError' ? undefined : error);
}

$('#credentials').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = { email: $('#email').value, password: $('#password').value };
  const path = event.submitter?.value === 'login' ? '/auth/login' : '/auth/register';
  const { data, error } = await api.POST(path, { body });
  if (data) signedIn(data.user);
  else show('signed-out', 'Signed out', error);
});

// "Forgot password?": the API answers 202 whether or not the account exists, and mails a link to
// SITE_URL/reset-password?token=..., which serve.js answers with this page.
$('#forgot').addEventListener('click', async () => {
  const { data, error } = await api.POST('/auth/forgot-password', { body: { email: $('#email').value } });
  $('#notice').textContent = data?.message ?? '';
  if (error) report(error);
});

const resetToken = location.pathname === '/reset-password' && new URLSearchParams(location.search).get('token');
if (resetToken) {
  // The token leaves the address bar at once: it must not stay in the history or go out in a Referer.
  history.replaceState(null, '', '/');
  $('#reset').hidden = false;
  $('#reset').addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = { token: resetToken, password: $('#new-password').value };
    const { data, error } = await api.POST('/auth/reset-password', { body });
    if (data) $('#reset').hidden = true;
    if (data) signedIn(data.user);
    else show('signed-out', 'Signed out', error);
  });
}

// A card's banner: one image sized for a card (a whole Blog's `banner.variants` would feed a `srcset`).
function bannerImage({ url, width, height }) {
  return Object.assign(document.createElement('img'), { alt: '', width, height, src: url });
}

// A blog card: its title, its tags as buttons listing that tag's posts, and its banner.
function blogItem(blog) {
  const item = document.createElement('li');
  item.append(Object.assign(document.createElement('span'), { className: 'title', textContent: blog.title }));
  for (const tag of blog.tags) item.append(' ', tagButton(tag));
  item.append(bannerImage(blog.banner));
  return item;
}

function tagButton(name, count) {
  const button = Object.assign(document.createElement('button'), { type: 'button', className: 'tag' });
  button.textContent = count === undefined ? `#${name}` : `#${name} (${count})`;
  button.dataset.tag = name;
  button.addEventListener('click', () => loadBlogs(name));
  return button;
}

// One page of cards (no content), of one tag's posts when a tag is given; then the tags, most used first.
async function loadBlogs(tag) {
  const query = { limit: 10, fields: 'card', ...(tag ? { tag } : {}) };
  const { data, error } = await api.GET('/blogs/', { params: { query } });
  $('#blogs').replaceChildren(...(data?.blogs ?? []).map(blogItem));
  $('#blogs').dataset.loaded = data ? String(data.blogs.length) : 'error';
  $('#blogs').dataset.tag = tag ?? '';
  if (error) return report(error);
  const tags = await api.GET('/tags/', { params: { query: { limit: 20 } } });
  $('#tags').replaceChildren(...(tags.data?.tags ?? []).map(({ name, count }) => tagButton(name, count)));
}

$('#load-blogs').addEventListener('click', () => {
  loadBlogs();
  // an admin's drafts too: a scheduled one leaves them once the API has published it
  if (!$('#admin').hidden) loadDrafts();
});

// A search's snippet: plain text, its matched words wrapped in <mark> through the DOM (never as HTML).
function snippetOf({ text, matches }) {
  const snippet = Object.assign(document.createElement('p'), { className: 'snippet' });
  let at = 0;
  for (const [start, end] of matches) {
    snippet.append(
      text.slice(at, start),
      Object.assign(document.createElement('mark'), { textContent: text.slice(start, end) }),
    );
    at = end;
  }
  snippet.append(text.slice(at));
  return snippet;
}

const searchHit = (blog) => {
  const item = blogItem(blog);
  item.append(snippetOf(blog.snippet));
  return item;
};

// The search box: the matches as cards, title matches first, each with its snippet.
$('#search').addEventListener('submit', async (event) => {
  event.preventDefault();
  const { data, error } = await api.GET('/blogs/', {
    params: { query: { q: $('#q').value, fields: 'card', limit: 10 } },
  });
  $('#blogs').replaceChildren(...(data?.blogs ?? []).map(searchHit));
  $('#blogs').dataset.search = data ? $('#q').value : 'error';
  if (error) report(error);
});

$('#logout').addEventListener('click', async () => {
  const { data, error } = await api.POST('/auth/logout');
  if (data) show('signed-out', 'Signed out');
  else report(error);
});

// ---------------------------------------------------------------- admins: write, schedule, preview, trash, webhooks

const button = (text, onClick) =>
  Object.assign(document.createElement('button'), { type: 'button', textContent: text, onclick: onClick });
const titleOf = (blog) =>
  Object.assign(document.createElement('span'), { className: 'title', textContent: blog.title });

async function loadAdmin() {
  await Promise.all([loadDrafts(), loadTrash(), loadWebhooks()]);
}

// A new post is saved as a draft, scheduled when "Publish at" is set (the browser's local time, sent as UTC).
$('#write').addEventListener('submit', async (event) => {
  event.preventDefault();
  const publishAt = $('#post-publish-at').value;
  const body = {
    title: $('#post-title').value,
    content: $('#post-content').value,
    status: 'draft',
    banner_image: $('#post-banner').files[0],
    ...(publishAt ? { publishAt: new Date(publishAt).toISOString() } : {}),
  };
  const { error } = await api.POST('/blogs/', { body, bodySerializer: formDataBody });
  if (error) return report(error);
  $('#write').reset();
  await loadDrafts();
});

// Drafts, newest first; a scheduled one says when it goes live (the API publishes it by itself then).
async function loadDrafts() {
  const { data, error } = await api.GET('/blogs/', {
    params: { query: { status: 'draft', fields: 'card', limit: 20 } },
  });
  if (error) return report(error);
  $('#drafts').replaceChildren(...data.blogs.map(draftItem));
  $('#drafts').dataset.loaded = String(Date.now());
}

function draftItem(blog) {
  const item = document.createElement('li');
  item.dataset.id = blog._id;
  const when = blog.publishAt ? `scheduled for ${new Date(blog.publishAt).toLocaleString()}` : 'draft';
  item.append(titleOf(blog), ` (${when}) `);
  item.append(
    button('Publish now', () => changeDraft(blog._id, 'PUT')),
    button('Preview link', () => previewLink(blog._id, item)),
    button('Trash', () => changeDraft(blog._id, 'DELETE')),
  );
  return item;
}

async function changeDraft(blogId, method) {
  const params = { path: { blogId } };
  const { error } =
    method === 'PUT'
      ? await api.PUT('/blogs/{blogId}', { params, body: { status: 'published' }, bodySerializer: formDataBody })
      : await api.DELETE('/blogs/{blogId}', { params });
  if (error) return report(error);
  await loadAdmin();
}

// A signed link to the draft for anyone who holds it: the front end's page (SITE_URL/preview?token=...).
async function previewLink(blogId, item) {
  const { data, error } = await api.POST('/blogs/{blogId}/preview-link', { params: { path: { blogId } } });
  if (error) return report(error);
  const text = `preview until ${new Date(data.expiresAt).toLocaleString()}`;
  item.append(
    ' ',
    Object.assign(document.createElement('a'), {
      className: 'preview',
      href: data.siteUrl ?? data.url,
      textContent: text,
    }),
  );
}

// The trash: each post comes back whole (comments, likes, counters) with "Restore".
async function loadTrash() {
  const { data, error } = await api.GET('/trash/', { params: { query: { limit: 20 } } });
  if (error) return report(error);
  const restore = (blogId) => async () => {
    const answer = await api.POST('/trash/{blogId}/restore', { params: { path: { blogId } } });
    if (answer.error) return report(answer.error);
    await loadAdmin();
  };
  $('#trash').replaceChildren(
    ...data.blogs.map((blog) => {
      const item = document.createElement('li');
      item.dataset.id = blog._id;
      item.append(titleOf(blog), ' ', button('Restore', restore(blog._id)));
      return item;
    }),
  );
}

// Webhooks: the secret is shown once, at registration; each webhook lists its latest deliveries.
$('#webhook').addEventListener('submit', async (event) => {
  event.preventDefault();
  const events = ['blog.published', 'blog.updated', 'blog.unpublished', 'blog.deleted'];
  const { data, error } = await api.POST('/webhooks/', { body: { url: $('#webhook-url').value, events } });
  if (error) return report(error);
  $('#webhook-secret').textContent = `Signing secret (shown once): ${data.secret}`;
  $('#webhook-secret').dataset.secret = data.secret;
  await loadWebhooks();
});

async function loadWebhooks() {
  const { data, error } = await api.GET('/webhooks/', { params: { query: { limit: 20 } } });
  if (error) return report(error);
  $('#webhooks').replaceChildren(
    ...data.webhooks.map((webhook) => {
      const item = Object.assign(document.createElement('li'), { textContent: `${webhook.url} ` });
      const deliveries = document.createElement('ul');
      item.append(
        button('Deliveries', async () => {
          const params = { path: { webhookId: webhook._id }, query: { limit: 10 } };
          const answer = await api.GET('/webhooks/{webhookId}/deliveries', { params });
          if (answer.error) return report(answer.error);
          deliveries.replaceChildren(
            ...answer.data.deliveries.map(({ event, status, attempts }) =>
              Object.assign(document.createElement('li'), {
                textContent: `${event}: ${status} (${attempts} attempts)`,
              }),
            ),
          );
        }),
        deliveries,
      );
      return item;
    }),
  );
}

// The front end's preview page (SITE_URL/preview?token=...): the draft, to whoever holds the link, signed in or not.
async function showPreview(token) {
  const { data, error } = await api.GET('/blogs/preview/{token}', { params: { path: { token } } });
  $('#preview').hidden = false;
  $('#preview').dataset.state = data ? 'shown' : 'gone';
  if (!data) {
    $('#preview').textContent = `This preview is no longer available: ${error.message}`;
    return;
  }
  const heading = Object.assign(document.createElement('h2'), { textContent: `Preview: ${data.blog.title}` });
  const excerpt = Object.assign(document.createElement('p'), { textContent: data.blog.excerpt });
  $('#preview').replaceChildren(heading, excerpt, bannerImage(data.blog.banner));
}

const previewToken = location.pathname === '/preview' && new URLSearchParams(location.search).get('token');
if (previewToken) showPreview(previewToken);

$('#api').textContent = API_BASE_URL;
showCurrentUser();
