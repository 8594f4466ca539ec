// SPDX-License-Identifier: Apache-2.0
// util.js - small helpers of the dashboard: DOM building, formatting,
// Slurm's strings (hostlists, TRES), Prometheus text.

/** h('a', {href: '#/x', class: 'c'}, 'text', child...) -> Element.
 *  Text goes in as text nodes, never as HTML. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function')
      el.addEventListener(k.slice(2), v);
    else if (k === 'dataset')
      Object.assign(el.dataset, v);
    else
      el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replace the children of 'el' with 'children'. */
export function fill(el, ...children) {
  el.replaceChildren();
  for (const c of children.flat(Infinity))
    if (c !== undefined && c !== null && c !== false) el.append(c);
  return el;
}

/** squeue's short state codes. */
const SHORT = {
  PENDING: 'PD', RUNNING: 'R', SUSPENDED: 'S', COMPLETING: 'CG',
  COMPLETED: 'CD', CANCELLED: 'CA', FAILED: 'F', TIMEOUT: 'TO',
  NODE_FAIL: 'NF', PREEMPTED: 'PR', BOOT_FAIL: 'BF', DEADLINE: 'DL',
  OUT_OF_MEMORY: 'OOM', REQUEUED: 'RQ', RESIZING: 'RS', REVOKED: 'RV',
  SPECIAL_EXIT: 'SE', STOPPED: 'ST', CONFIGURING: 'CF',
};
export const shortState = (s) => SHORT[s] || s;

/** Is a job in state 's' still alive (may be cancelled)? */
export const isActive = (s) =>
  ['PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETING', 'CONFIGURING',
   'REQUEUED', 'RESIZING', 'STOPPED'].includes(s);

/** A state badge: "PD PENDING", its colour from the state. */
export function stateBadge(state, id) {
  return h('span', {class: `badge st-${String(state).toLowerCase()}`,
                    id, dataset: {state}},
           h('b', {}, shortState(state)), ' ', state);
}

/** Epoch seconds -> "2024-05-01 12:34:56", '' for 0/null. */
export function fmtTime(t) {
  if (!t) return '';
  const d = new Date(t * 1000);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
         `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Seconds -> Slurm's [D-]HH:MM:SS (M:SS under an hour). */
export function fmtDuration(s) {
  if (s === null || s === undefined || s < 0) return '';
  s = Math.floor(s);
  const d = Math.floor(s / 86400), hh = Math.floor(s / 3600) % 24;
  const mm = Math.floor(s / 60) % 60, ss = s % 60;
  const p = (n) => String(n).padStart(2, '0');
  if (d) return `${d}-${p(hh)}:${p(mm)}:${p(ss)}`;
  if (hh) return `${hh}:${p(mm)}:${p(ss)}`;
  return `${mm}:${p(ss)}`;
}

/** A time limit in minutes (null: none) as squeue prints it. */
export const fmtLimit = (m) =>
  m === null || m === undefined ? 'UNLIMITED' : fmtDuration(m * 60);

/** How long job 'j' has run, at 'now' (epoch seconds). */
export function elapsed(j, now) {
  if (!j.start_time || j.job_state === 'PENDING') return 0;
  const end = j.end_time && !isActive(j.job_state) ? j.end_time : now;
  return Math.max(0, end - j.start_time);
}

/** MiB -> "1.5 GiB". */
export function fmtMiB(m) {
  if (m === null || m === undefined) return '';
  const units = ['MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (m >= 1024 && i < units.length - 1) { m /= 1024; i++; }
  return `${Math.round(m * 10) / 10} ${units[i]}`;
}

/** Expand a hostlist: "node[01-03,07],gpu5" -> [node01,node02,...]. */
export function expandHostlist(list) {
  const out = [];
  if (!list) return out;
  // Split on commas outside brackets.
  const parts = [];
  let depth = 0, cur = '';
  for (const ch of list) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (ch === ',' && depth === 0) { parts.push(cur); cur = ''; }
    else cur += ch;
  }
  if (cur) parts.push(cur);
  for (const p of parts) {
    const m = /^([^[]*)\[([^\]]*)\](.*)$/.exec(p);
    if (!m) { out.push(p); continue; }
    for (const r of m[2].split(',')) {
      const [a, b] = r.split('-');
      if (b === undefined) { out.push(m[1] + a + m[3]); continue; }
      for (let n = Number(a); n <= Number(b); n++)
        out.push(m[1] + String(n).padStart(a.length, '0') + m[3]);
    }
  }
  return out;
}

/** "cpu=32,mem=256G,gres/gpu=8" -> {cpu: '32', mem: '256G', ...}. */
export function parseTres(s) {
  const o = {};
  for (const kv of String(s || '').split(',')) {
    const i = kv.indexOf('=');
    if (i > 0) o[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return o;
}

/** GPUs in a gres string: "gpu:a100:8(S:0-1),gpu:2" -> 10. */
export function gresGpus(s) {
  let n = 0;
  for (const g of String(s || '').split(/,(?![^(]*\))/)) {
    const m = /^gpu(?::[^:(]+)?:(\d+)/.exec(g.trim());
    if (m) n += Number(m[1]);
  }
  return n;
}

/** A node's GPUs: {total, used}. */
export function nodeGpus(n) {
  const t = parseTres(n.tres), u = parseTres(n.tres_used);
  const total = Number(t['gres/gpu'] ?? gresGpus(n.gres));
  const used = Number(u['gres/gpu'] ?? gresGpus(n.gres_used));
  return {total: total || 0, used: used || 0};
}

/** Prometheus text -> [{name, labels: {}, value}]. */
export function parseMetrics(text) {
  const out = [];
  const re = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = re.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    out.push({name: m[1], labels, value: Number(m[3])});
  }
  return out;
}

/** Sum of the series 'name' whose labels include 'match'. */
export function metricSum(series, name, match = {}) {
  let sum = 0;
  for (const s of series) {
    if (s.name !== name) continue;
    if (Object.entries(match).every(([k, v]) => s.labels[k] === v))
      sum += s.value;
  }
  return sum;
}

/** The claims of a JWT (not checked: the controller checks). */
export function jwtClaims(token) {
  try {
    const b = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(b + '='.repeat((4 - (b.length % 4)) % 4)));
  } catch {
    return null;
  }
}

/** A heat colour for 0..1: pale to deep. */
export function heat(f) {
  const x = Math.max(0, Math.min(1, f || 0));
  // From #e8f1fb (idle) through amber to #c0392b (full).
  const stops = [[232, 241, 251], [246, 196, 83], [192, 57, 43]];
  const seg = x < 0.5 ? 0 : 1, t = x < 0.5 ? x * 2 : (x - 0.5) * 2;
  const c = stops[seg].map((a, i) => Math.round(a + (stops[seg + 1][i] - a) * t));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}
