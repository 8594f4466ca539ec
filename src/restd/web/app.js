// SPDX-License-Identifier: Apache-2.0
// app.js - the dashboard's shell: login state, the page router (#/queue,
// #/nodes[/NAME], #/job/ID, #/utilisation, #/login) and live refresh.
//
// A page is a function mount(main, arg) returning {refresh(), unmount()};
// refresh() is called at once and then every refresh interval, together
// with one sample of the utilisation history.

import * as api from './api.js';
import * as history from './history.js';
import {jwtClaims} from './util.js';
import {job} from './job.js';
import {login} from './login.js';
import {nodes} from './nodes.js';
import {queue} from './queue.js';
import {utilisation} from './utilisation.js';

const $ = (id) => document.getElementById(id);
const REFRESH_KEY = 'drover.refresh';

const pages = {queue, nodes, job, utilisation, login};

let page = null;      // the mounted page: {refresh, unmount}
let timer = null;
let busy = false;

/** The page and argument of the location's hash. */
function route() {
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  return {name: pages[name] ? name : 'queue',
          arg: rest.map(decodeURIComponent).join('/')};
}

function showError(text) {
  $('error').textContent = text || '';
  $('error').hidden = !text;
}

/** Header bits that depend on being logged in. */
function showSession(token) {
  const claims = token ? jwtClaims(token) : null;
  $('nav').hidden = $('session').hidden = !token;
  $('user').textContent = claims
    ? `${claims.sun}` + (claims.exp
      ? ` (token until ${new Date(claims.exp * 1000).toLocaleTimeString()})`
      : '')
    : '';
}

/** One refresh: the page's data and a history sample, never two at once. */
async function tick() {
  if (busy || !page || !api.getToken()) return;
  busy = true;
  const results = await Promise.allSettled([page.refresh?.(),
                                            history.sample()]);
  busy = false;
  const failed = results.find((r) => r.status === 'rejected');
  if (failed && failed.reason?.status !== 401)
    showError(failed.reason?.message || String(failed.reason));
  else if (!failed)
    showError('');
  $('updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
}

function schedule() {
  clearInterval(timer);
  const ms = Number(sessionStorage.getItem(REFRESH_KEY) ?? 2000);
  $('refresh').value = String(ms);
  timer = ms > 0 ? setInterval(tick, ms) : null;
}

/** Mount the page of the hash (the login page when there is no token). */
function render() {
  const token = api.getToken();
  let {name, arg} = route();
  if (!token && name !== 'login') {
    sessionStorage.setItem('drover.after-login', location.hash || '#/queue');
    location.hash = '#/login';
    return;
  }
  showSession(token);
  page?.unmount?.();
  for (const a of document.querySelectorAll('#nav a'))
    a.classList.toggle('active', a.dataset.page === name);
  const main = $('main');
  main.replaceChildren();
  page = pages[name](main, arg);
  document.title = `Drover: ${name}${arg ? ' ' + arg : ''}`;
  if (name !== 'login') tick();
}

window.addEventListener('hashchange', render);
window.addEventListener('drover-unauthorized', (e) => {
  api.clearToken();
  sessionStorage.setItem('drover.login-error',
                         `Log in again: ${e.detail}`);
  sessionStorage.setItem('drover.after-login', location.hash || '#/queue');
  if (location.hash !== '#/login') location.hash = '#/login';
});
$('refresh').addEventListener('change', (e) => {
  sessionStorage.setItem(REFRESH_KEY, e.target.value);
  schedule();
  tick();
});
$('logout').addEventListener('click', () => {
  api.clearToken();
  location.hash = '#/login';
});

schedule();
render();
