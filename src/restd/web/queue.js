// SPDX-License-Identifier: Apache-2.0
// queue.js - the queue page: every job the user may see (squeue's
// records from /slurm/v0.0.38/jobs), with filters and sorting.

import * as api from './api.js';
import {elapsed, fill, fmtDuration, fmtLimit, h, isActive,
        stateBadge} from './util.js';

const KEY = 'drover.queue';

/** The columns: header, sort key of a job, cell of a job. */
const COLUMNS = [
  {id: 'job_id', title: 'Job', key: (j) => j.job_id,
   cell: (j) => h('a', {href: `#/job/${j.job_id}`}, String(j.job_id))},
  {id: 'name', title: 'Name', key: (j) => j.name},
  {id: 'user_name', title: 'User', key: (j) => j.user_name},
  {id: 'partition', title: 'Partition', key: (j) => j.partition},
  {id: 'job_state', title: 'State', key: (j) => j.job_state,
   cell: (j) => stateBadge(j.job_state)},
  {id: 'time', title: 'Time', key: (j, now) => elapsed(j, now),
   cell: (j, now) => fmtDuration(elapsed(j, now))},
  {id: 'time_limit', title: 'Limit', key: (j) => j.time_limit ?? Infinity,
   cell: (j) => fmtLimit(j.time_limit)},
  {id: 'node_count', title: 'Nodes', key: (j) => j.node_count},
  {id: 'where', title: 'Nodelist (reason)',
   key: (j) => (j.job_state === 'PENDING' ? `(${j.state_reason})` : j.nodes),
   cell: (j) => (j.job_state === 'PENDING'
     ? h('span', {class: 'muted'}, `(${j.state_reason})`) : j.nodes)},
];

function loadPrefs() {
  const d = {state: 'all', user: '', partition: '', text: '',
             sort: 'job_id', desc: true};
  try {
    return {...d, ...JSON.parse(sessionStorage.getItem(KEY) || '{}')};
  } catch {
    return d;
  }
}

/** Does job 'j' pass the filters 'p'? */
function passes(j, p) {
  if (p.state === 'active' && !isActive(j.job_state)) return false;
  if (p.state !== 'all' && p.state !== 'active' && j.job_state !== p.state)
    return false;
  if (p.user && j.user_name !== p.user) return false;
  if (p.partition && j.partition !== p.partition) return false;
  const t = p.text.trim().toLowerCase();
  return !t || String(j.job_id) === t || j.name.toLowerCase().includes(t)
         || (j.nodes || '').toLowerCase().includes(t);
}

/** Set 'sel''s options to 'values' (first: ['', label]), keeping its value. */
function setOptions(sel, first, values, current) {
  const want = [first, ...values.map((v) => [v, v])];
  const have = [...sel.options].map((o) => o.value);
  if (have.join('\n') !== want.map((w) => w[0]).join('\n'))
    fill(sel, want.map(([v, label]) => h('option', {value: v}, label)));
  sel.value = current;
}

export function queue(main) {
  const p = loadPrefs();
  const save = () => sessionStorage.setItem(KEY, JSON.stringify(p));
  let jobs = [], now = Date.now() / 1000;

  const state = h('select', {id: 'f-state'});
  const user = h('select', {id: 'f-user'});
  const part = h('select', {id: 'f-partition'});
  const text = h('input', {id: 'f-text', type: 'search', value: p.text,
                           placeholder: 'job id, name or node'});
  const summary = h('p', {id: 'queue-summary', class: 'muted'});
  const table = h('table', {id: 'queue', class: 'data'});

  function draw() {
    const states = [...new Set(jobs.map((j) => j.job_state))].sort();
    setOptions(state, ['all', 'all states'],
               ['active', ...states.filter((s) => s !== 'active')], p.state);
    if (state.value !== p.state) state.value = p.state = 'all';
    setOptions(user, ['', 'all users'],
               [...new Set(jobs.map((j) => j.user_name))].sort(), p.user);
    setOptions(part, ['', 'all partitions'],
               [...new Set(jobs.map((j) => j.partition))].sort(), p.partition);
    const col = COLUMNS.find((c) => c.id === p.sort) || COLUMNS[0];
    const shown = jobs.filter((j) => passes(j, p)).sort((a, b) => {
      const x = col.key(a, now), y = col.key(b, now);
      const c = typeof x === 'number' && typeof y === 'number'
        ? x - y : String(x).localeCompare(String(y), undefined,
                                         {numeric: true});
      return (p.desc ? -c : c) || b.job_id - a.job_id;
    });
    const count = (s) => jobs.filter((j) => j.job_state === s).length;
    summary.textContent = `${shown.length} of ${jobs.length} jobs shown; ` +
      `${count('RUNNING')} running, ${count('PENDING')} pending`;
    drawTable(shown, col);
  }

  function drawTable(shown, col) {
    const head = h('tr', {}, COLUMNS.map((c) => h('th', {
      class: c === col ? `sorted ${p.desc ? 'desc' : 'asc'}` : null,
      dataset: {col: c.id}, 'aria-sort': c === col
        ? (p.desc ? 'descending' : 'ascending') : null,
      onclick: () => {
        p.desc = p.sort === c.id ? !p.desc : false;
        p.sort = c.id;
        save();
        draw();
      }}, c.title)));
    const cell = (c, j) => h('td', {}, c.cell ? c.cell(j, now)
                                              : String(c.key(j, now) ?? ''));
    const rows = shown.map((j) => h('tr', {dataset: {job: j.job_id,
                                                     state: j.job_state}},
                                    COLUMNS.map((c) => cell(c, j))));
    fill(table, h('thead', {}, head), h('tbody', {}, rows.length ? rows
      : h('tr', {}, h('td', {colspan: COLUMNS.length, class: 'muted'},
                      'No jobs match.'))));
  }

  const onFilter = () => {
    Object.assign(p, {state: state.value, user: user.value,
                      partition: part.value, text: text.value});
    save();
    draw();
  };
  for (const el of [state, user, part]) el.addEventListener('change', onFilter);
  text.addEventListener('input', onFilter);

  main.append(h('section', {},
    h('h1', {}, 'Queue'),
    h('div', {class: 'filters'},
      h('label', {}, 'State ', state), h('label', {}, 'User ', user),
      h('label', {}, 'Partition ', part), h('label', {}, 'Find ', text)),
    summary, table));
  draw();
  return {
    async refresh() {
      jobs = await api.jobs();
      now = Date.now() / 1000;
      draw();
    },
  };
}
