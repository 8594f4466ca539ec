// SPDX-License-Identifier: Apache-2.0
// login.js - the login page: paste the output of `scontrol token`.

import * as api from './api.js';
import {h} from './util.js';

export function login(main) {
  const input = h('textarea', {id: 'token', rows: 4, spellcheck: 'false',
                               autocomplete: 'off',
                               placeholder: 'SLURM_JWT=eyJ...'});
  const msg = h('p', {id: 'login-error', class: 'error', role: 'alert'});
  const pending = sessionStorage.getItem('drover.login-error');
  sessionStorage.removeItem('drover.login-error');
  msg.textContent = pending || '';
  msg.hidden = !pending;

  async function submit(e) {
    e.preventDefault();
    const token = api.setToken(input.value);
    msg.hidden = true;
    if (!token) return;
    try {
      await api.ping(token);
    } catch (err) {
      api.clearToken();
      msg.textContent = `Not logged in: ${err.message}`;
      msg.hidden = false;
      return;
    }
    const next = sessionStorage.getItem('drover.after-login');
    sessionStorage.removeItem('drover.after-login');
    location.hash = next && next !== '#/login' ? next : '#/queue';
  }

  main.append(h('section', {class: 'login card'},
    h('h1', {}, 'Log in'),
    h('p', {}, 'Run ', h('code', {}, 'scontrol token'),
      ' on the cluster and paste what it prints (the ',
      h('code', {}, 'SLURM_JWT=…'), ' line or the token alone).  ',
      'The token is kept in this tab only (sessionStorage) and is sent ',
      'with each request; you see and may do what your user may.'),
    h('form', {id: 'login-form', onsubmit: submit},
      input, h('button', {type: 'submit', id: 'login-button'}, 'Log in')),
    msg));
  input.focus();
  return {};
}
