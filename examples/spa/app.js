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

function blogItem(blog) {
  const item = document.createElement('li');
  item.append(blog.title, bannerImage(blog.banner));
  return item;
}

$('#load-blogs').addEventListener('click', async () => {
  const { data, error } = await api.GET('/blogs/', { params: { query: { limit: 10 } } });
  $('#blogs').replaceChildren(...(data?.blogs ?? []).map(blogItem));
  $('#blogs').dataset.loaded = data ? String(data.blogs.length) : 'error';
  if (error) show($('#status').dataset.state, $('#status').textContent, error);
});

$('#logout').addEventListener('click', async () => {
  const { data, error } = await api.POST('/auth/logout');
  if (data) show('signed-out', 'Signed out');
  else show($('#status').dataset.state, $('#status').textContent, error);
});

$('#api').textContent = API_BASE_URL;
showCurrentUser();
