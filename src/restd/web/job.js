// SPDX-License-Identifier: Apache-2.0
// job.js - one job's page: its state, why it is pending (the
// controller's pending_explain), its steps, what it uses now (CPU
// efficiency and memory, per node), its details, and a cancel button.

import * as api from './api.js';
import {elapsed, fill, fmtDuration, fmtLimit, fmtTime, h, isActive,
        stateBadge} from './util.js';

/** Slurm's step name of a record: "12.batch", "12.0". */
const stepName = (s) => s.step || `${s.job_id}.${s.step_id}`;

function stepsTable(steps, now) {
  if (!steps.length) return h('p', {class: 'muted'}, 'No steps yet.');
  const head = ['Step', 'Name', 'State', 'Nodes', 'Tasks', 'CPUs', 'Start',
                'Elapsed', 'Exit', 'Max RSS'];
  return h('table', {class: 'data', id: 'steps'},
    h('thead', {}, h('tr', {}, head.map((t) => h('th', {}, t)))),
    h('tbody', {}, steps.map((s) => {
      const end = s.end_time || now;
      return h('tr', {dataset: {step: stepName(s), state: s.state}},
        h('td', {}, stepName(s)), h('td', {}, s.name),
        h('td', {}, stateBadge(s.state)), h('td', {}, s.nodes),
        h('td', {}, String(s.ntasks)), h('td', {}, String(s.ncpus)),
        h('td', {}, fmtTime(s.start_time)),
        h('td', {}, s.start_time ? fmtDuration(end - s.start_time) : ''),
        h('td', {}, s.state === 'RUNNING' ? '' : String(s.exit_status)),
        h('td', {}, s.max_rss_kib > 0 ? `${s.max_rss_kib} KiB` : ''));
    })));
}

/** Efficiency of a running job now: per node and step, CPU time used
 *  against the CPUs held for the run time so far, and memory (sstat's
 *  figures from /drover/v1/job/{id}/usage). */
function usageTable(j, nodes, now) {
  if (!nodes.length) return h('p', {class: 'muted'}, 'No usage yet.');
  const held = Math.max(1, elapsed(j, now)) * Math.max(1, j.cpus || 1) /
               Math.max(1, nodes.length);
  const head = ['Node', 'Step', 'Processes', 'CPU time', 'CPU efficiency',
                'RSS', 'Largest RSS', 'Read', 'Written'];
  const rows = [];
  for (const n of nodes)
    for (const s of n.steps)
      rows.push(h('tr', {dataset: {node: n.node, step: s.step}},
        h('td', {}, n.node), h('td', {}, `${j.job_id}.${s.step}`),
        h('td', {}, String(s.processes)),
        h('td', {}, fmtDuration(Math.round(s.cpu_us / 1e6))),
        h('td', {class: 'efficiency'},
          `${Math.min(100, (100 * s.cpu_us / 1e6 / held)).toFixed(0)}%`),
        h('td', {}, `${(s.rss_kib / 1024).toFixed(1)} MiB`),
        h('td', {}, `${(s.max_rss_kib / 1024).toFixed(1)} MiB`),
        h('td', {}, `${s.read_bytes} B`), h('td', {}, `${s.write_bytes} B`)));
  return h('table', {class: 'data', id: 'usage'},
    h('thead', {}, h('tr', {}, head.map((t) => h('th', {}, t)))),
    h('tbody', {}, rows));
}

/** The why-pending box, or the job's reason when it is not pending. */
function whyBox(j) {
  if (j.job_state !== 'PENDING')
    return j.state_reason && j.state_reason !== 'None'
      ? h('p', {class: 'muted'}, `Reason: ${j.state_reason}`) : null;
  return h('section', {id: 'why-pending', class: 'card why'},
    h('h2', {}, 'Why is it pending?'),
    h('p', {}, h('b', {}, 'Reason: '), j.state_reason || 'None'),
    h('p', {id: 'pending-explain'},
      j.pending_explain || 'The controller gave no explanation.'));
}

function details(j, now) {
  const exit = (c) => (c === null || c === undefined ? '' : String(c));
  const rows = [
    ['User', `${j.user_name} (${j.user_id})`], ['Account', j.account],
    ['Partition', j.partition], ['QOS', j.qos],
    ['Priority', j.priority], ['Submitted', fmtTime(j.submit_time)],
    ['Eligible', fmtTime(j.eligible_time)],
    [j.job_state === 'PENDING' ? 'Expected start' : 'Started',
     fmtTime(j.start_time)],
    ['Ended', isActive(j.job_state) ? '' : fmtTime(j.end_time)],
    ['Run time', fmtDuration(elapsed(j, now))],
    ['Time limit', fmtLimit(j.time_limit)], ['Nodes', j.nodes],
    ['Node count', j.node_count], ['CPUs', j.cpus], ['Tasks', j.tasks],
    ['Requested', j.tres_req_str], ['Allocated', j.tres_alloc_str],
    ['GRES per node', j.tres_per_node], ['Dependency', j.dependency],
    ['Exit code', exit(j.exit_code)],
    ['Working directory', j.current_working_directory],
    ['Output', j.standard_output], ['Error', j.standard_error],
    ['Comment', j.comment],
  ];
  return h('dl', {class: 'fields', id: 'job-details'},
    rows.filter(([, v]) => v !== '' && v !== null && v !== undefined)
      .map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]));
}

/** The cancel button: asks once more, then DELETEs the job. */
function cancelBox(j, after) {
  const box = h('span', {class: 'cancel'});
  const ask = () => fill(box,
    h('span', {}, `Cancel job ${j.job_id}? `),
    h('button', {id: 'cancel-confirm', class: 'danger', type: 'button',
                 onclick: go}, 'Yes, cancel it'),
    h('button', {id: 'cancel-abort', type: 'button', onclick: idle}, 'No'));
  const idle = () => fill(box, h('button', {id: 'cancel', class: 'danger',
                                            type: 'button', onclick: ask},
                                 'Cancel job'));
  async function go() {
    fill(box, h('span', {class: 'muted'}, 'Cancelling…'));
    try {
      await api.cancel(j.job_id);
      fill(box, h('span', {id: 'cancel-done'}, 'Cancel sent.'));
      after();
    } catch (e) {
      fill(box, h('span', {class: 'error', id: 'cancel-error'},
                  `Not cancelled: ${e.message}`));
    }
  }
  idle();
  return box;
}

export function job(main, id) {
  const head = h('div', {class: 'job-head'});
  const why = h('div');
  const stepsBox = h('div');
  const usageBox = h('div');
  const info = h('div');
  let cancel = null, shownState = null;

  main.append(h('section', {},
    h('p', {}, h('a', {href: '#/queue'}, '← Queue')), head, why,
    h('h2', {}, 'Steps'), stepsBox, h('h2', {}, 'Usage now'), usageBox,
    h('h2', {}, 'Details'), info));

  function draw(j, steps, used, now) {
    if (!cancel || shownState !== j.job_state) {
      // A new cancel box only when the state changes, so a refresh does
      // not close the question while the user answers it.
      cancel = isActive(j.job_state) ? cancelBox(j, () => tick()) : null;
      shownState = j.job_state;
    }
    fill(head, h('h1', {}, `Job ${j.job_id} `, h('span', {class: 'muted'},
                                                  j.name)),
         h('div', {class: 'job-state'}, stateBadge(j.job_state, 'job-state'),
           cancel));
    fill(why, whyBox(j));
    fill(stepsBox, steps instanceof Error
      ? h('p', {class: 'error'}, `Steps: ${steps.message}`)
      : stepsTable(steps, now));
    fill(usageBox, j.job_state !== 'RUNNING'
      ? h('p', {class: 'muted'}, 'Only a running job has usage to show.')
      : used instanceof Error
        ? h('p', {class: 'error'}, `Usage: ${used.message}`)
        : usageTable(j, used, now));
    fill(info, details(j, now));
  }

  async function tick() {
    let j;
    try {
      j = await api.job(id);
    } catch (e) {
      if (e.status !== 404) throw e;
      fill(head, h('h1', {}, `Job ${id}`),
           h('p', {class: 'error', id: 'no-job'}, e.message));
      fill(why); fill(stepsBox); fill(info);
      return;
    }
    const steps = await api.steps(id).catch((e) => e);
    const used = j.job_state === 'RUNNING'
      ? await api.usage(id).catch((e) => e) : [];
    draw(j, steps, used, Date.now() / 1000);
  }
  return {refresh: tick};
}
