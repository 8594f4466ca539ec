// SPDX-License-Identifier: Apache-2.0
// api.js - the dashboard's calls to droverrestd, each with the user's
// token (X-SLURM-USER-TOKEN).  The token lives in sessionStorage: it
// goes when the tab closes, and other sites cannot read it.

const KEY = 'drover.token';
const V38 = '/slurm/v0.0.38';

/** The stored token, or null. */
export const getToken = () => sessionStorage.getItem(KEY);

/** Keep a token: accepts `scontrol token`'s "SLURM_JWT=..." line, an
 *  "export SLURM_JWT=..." line or the bare token.  Returns it. */
export function setToken(text) {
  let t = String(text || '').trim();
  t = t.replace(/^export\s+/, '').replace(/^SLURM_JWT=/, '').trim();
  t = t.replace(/^["']|["']$/g, '');
  if (t) sessionStorage.setItem(KEY, t);
  else sessionStorage.removeItem(KEY);
  return t;
}

export const clearToken = () => sessionStorage.removeItem(KEY);

/** An error of a call: its HTTP status and droverrestd's error text. */
export class ApiError extends Error {
  constructor(status, text) {
    super(text);
    this.status = status;
  }
}

/** Call 'path'; resolves to the parsed JSON (or text), or rejects with
 *  ApiError.  A 401 also fires 'drover-unauthorized' on window. */
export async function call(path, {method = 'GET', token = getToken()} = {}) {
  const headers = {};
  if (token) headers['X-SLURM-USER-TOKEN'] = token;
  let resp;
  try {
    resp = await fetch(path, {method, headers, cache: 'no-store'});
  } catch (e) {
    throw new ApiError(0, `droverrestd cannot be reached (${e.message})`);
  }
  const type = resp.headers.get('Content-Type') || '';
  const body = type.includes('json') ? await resp.json() : await resp.text();
  if (!resp.ok) {
    const text = body?.errors?.[0]?.error || `HTTP ${resp.status}`;
    if (resp.status === 401)
      window.dispatchEvent(new CustomEvent('drover-unauthorized',
                                           {detail: text}));
    throw new ApiError(resp.status, text);
  }
  return body;
}

export const ping = (token) => call(`${V38}/ping`, {token});
export const jobs = () => call(`${V38}/jobs`).then((d) => d.jobs);
export const job = (id) =>
  call(`${V38}/job/${encodeURIComponent(id)}`).then((d) => d.jobs[0]);
export const steps = (id) =>
  call(`/drover/v1/job/${encodeURIComponent(id)}/steps`).then((d) => d.steps);
/** What a running job's steps use now, per node (sstat's figures). */
export const usage = (id) =>
  call(`/drover/v1/job/${encodeURIComponent(id)}/usage`).then((d) => d.nodes);
export const nodes = () => call(`${V38}/nodes`).then((d) => d.nodes);
export const partitions = () =>
  call(`${V38}/partitions`).then((d) => d.partitions);
export const metrics = () => call('/metrics');
/** The cluster's CPU and GPU seconds per hour from accounting, over the
 *  last 24 hours ('24h') or 7 days ('7d'). */
export const utilization = (range) => call('/drover/v1/utilization' +
  (range === '7d' ? '?start=now-7days' : ''));
export const cancel = (id) =>
  call(`${V38}/job/${encodeURIComponent(id)}`, {method: 'DELETE'});
