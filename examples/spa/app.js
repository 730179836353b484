// The example SPA's whole logic. The typed client (clients/typescript/, bundled as /client.js by
// serve.js) sends every request with credentials: 'include', keeps the access token in memory, and on
// a 401 calls POST /auth/refresh-token (the httpOnly cookie proves the session) and retries once.
import { createBlogApiClient } from './client.js';
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
}

// On load there is no access token in memory: this asks for the current user, and the client
// refreshes through the cookie when a session survives from before the reload.
async function showCurrentUser() {
  const { data, error } = await api.GET('/users/current');
  if (data) show('signed-in', `Signed in as ${data.user.username} (${data.user.email})`);
  else show('signed-out', 'Signed out', error?.code === 'AuthenticationError' ? undefined : error);
}

$('#credentials').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = { email: $('#email').value, password: $('#password').value };
  const path = event.submitter?.value === 'login' ? '/auth/login' : '/auth/register';
  const { data, error } = await api.POST(path, { body });
  if (data) show('signed-in', `Signed in as ${data.user.username} (${data.user.email})`);
  else show('signed-out', 'Signed out', error);
});

// "Forgot password?": the API answers 202 whether or not the account exists, and mails a link to
// SITE_URL/reset-password?token=..., which serve.js answers with this page.
$('#forgot').addEventListener('click', async () => {
  const { data, error } = await api.POST('/auth/forgot-password', { body: { email: $('#email').value } });
  $('#notice').textContent = data?.message ?? '';
  if (error) show($('#status').dataset.state, $('#status').textContent, error);
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
    if (data) show('signed-in', `Signed in as ${data.user.username} (${data.user.email})`);
    else show('signed-out', 'Signed out', error);
  });
}

// The banner as a responsive image: the browser picks the variant the layout needs (at most the column's
// 40rem); a blog stored before variants has none, and shows its one banner.
function bannerImage({ url, width, height, variants = [] }) {
  const image = Object.assign(document.createElement('img'), { alt: '', width, height });
  if (variants.length > 0) {
    image.srcset = variants.map((variant) => `${variant.url} ${variant.width}w`).join(', ');
    image.sizes = '(max-width: 42rem) calc(100vw - 2rem), 40rem';
  }
  image.src = url;
  return image;
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
  if (error) return show($('#status').dataset.state, $('#status').textContent, error);
  const tags = await api.GET('/tags', { params: { query: { limit: 20 } } });
  $('#tags').replaceChildren(...(tags.data?.tags ?? []).map(({ name, count }) => tagButton(name, count)));
}

$('#load-blogs').addEventListener('click', () => loadBlogs());

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
  if (error) show($('#status').dataset.state, $('#status').textContent, error);
});

$('#logout').addEventListener('click', async () => {
  const { data, error } = await api.POST('/auth/logout');
  if (data) show('signed-out', 'Signed out');
  else show($('#status').dataset.state, $('#status').textContent, error);
});

$('#api').textContent = API_BASE_URL;
showCurrentUser();
