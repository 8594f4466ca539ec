// SPDX-License-Identifier: Apache-2.0
// nodes.js - the node grid: one tile per node, coloured by the share of
// its GPUs in use (a heatmap), with its CPUs and memory; #/nodes/NAME
// also shows that node's details and the jobs running on it.

import * as api from './api.js';
import {expandHostlist, fill, fmtMiB, h, heat, isActive, nodeGpus,
        stateBadge} from './util.js';

/** A bar: 'used' of 'total', labelled. */
function bar(label, used, total, text) {
  const f = total ? used / total : 0;
  const inner = h('span', {class: 'fill'});
  inner.style.setProperty('width', `${Math.round(f * 100)}%`);
  return h('div', {class: 'bar', title: `${label} ${text}`},
           h('span', {class: 'label'}, `${label} ${text}`), inner);
}

/** One node's tile. */
function tile(n, selected) {
  const g = nodeGpus(n);
  const frac = g.total ? g.used / g.total : null;
  const cells = [];
  for (let i = 0; i < g.total; i++)
    cells.push(h('span', {class: i < g.used ? 'gpu used' : 'gpu'}));
  const el = h('a', {
    href: `#/nodes/${encodeURIComponent(n.name)}`,
    class: `node${selected ? ' selected' : ''}${frac === null ? ' nogpu' : ''}`,
    dataset: {node: n.name, gpuUsed: g.used, gpuTotal: g.total},
    title: frac === null ? 'no GPUs'
      : `${g.used} of ${g.total} GPUs in use (${Math.round(frac * 100)}%)`},
    h('div', {class: 'node-head'}, h('b', {}, n.name), ' ',
      h('span', {class: 'node-state'}, n.state)),
    h('div', {class: 'gpus'}, frac === null ? 'no GPUs'
      : [h('span', {class: 'gpu-text'}, `GPU ${g.used}/${g.total}`), cells]),
    bar('CPU', n.alloc_cpus, n.cpus, `${n.alloc_cpus}/${n.cpus}`),
    bar('Mem', n.alloc_memory, n.real_memory,
        `${fmtMiB(n.alloc_memory)} / ${fmtMiB(n.real_memory)}`));
  if (frac !== null) el.style.setProperty('background-color', heat(frac));
  if (frac !== null && frac > 0.6) el.classList.add('hot');
  return el;
}

/** The details of node 'n' and the active jobs on it. */
function details(n, jobs) {
  const here = jobs.filter((j) => isActive(j.job_state)
                           && expandHostlist(j.nodes).includes(n.name));
  const rows = [
    ['State', [n.state, ...(n.state_flags || [])].join('+')],
    ['Reason', n.reason], ['Partitions', (n.partitions || []).join(', ')],
    ['CPUs', `${n.alloc_cpus} allocated, ${n.idle_cpus} idle of ${n.cpus}`],
    ['Memory', `${fmtMiB(n.alloc_memory)} of ${fmtMiB(n.real_memory)}`],
    ['GRES', `${n.gres || '-'} (in use: ${n.gres_used || '-'})`],
    ['TRES', n.tres], ['TRES in use', n.tres_used],
    ['Features', n.active_features || n.features],
    ['Address', `${n.address}:${n.port}`], ['Version', n.slurmd_version],
  ];
  return h('section', {id: 'node-details', class: 'card'},
    h('h2', {}, `Node ${n.name}`),
    h('dl', {class: 'fields'}, rows.filter(([, v]) => v)
      .map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))])),
    h('h3', {}, `Jobs on ${n.name}`),
    here.length ? h('ul', {class: 'joblist'}, here.map((j) => h('li', {},
      h('a', {href: `#/job/${j.job_id}`}, String(j.job_id)), ' ', j.name,
      ' ', stateBadge(j.job_state), ' ', j.user_name)))
      : h('p', {class: 'muted'}, 'None.'));
}

function legend() {
  return h('div', {class: 'legend'}, 'GPUs in use: ',
    h('span', {class: 'legend-bar'}), ' 0% → 100%; grey: no GPUs');
}

export function nodes(main, selected) {
  const summary = h('p', {id: 'nodes-summary', class: 'muted'});
  const grid = h('div', {id: 'node-grid', class: 'grid'});
  const more = h('div');

  main.append(h('section', {}, h('h1', {}, 'Nodes'), summary, legend(),
                grid, more));
  return {
    async refresh() {
      const [list, jobs] = await Promise.all(
        [api.nodes(), selected ? api.jobs() : []]);
      let used = 0, total = 0, cpu = 0, cpus = 0;
      for (const n of list) {
        const g = nodeGpus(n);
        used += g.used; total += g.total;
        cpu += n.alloc_cpus; cpus += n.cpus;
      }
      summary.textContent = `${list.length} nodes; GPUs ${used}/${total} ` +
        `in use; CPUs ${cpu}/${cpus} allocated`;
      fill(grid, list.map((n) => tile(n, n.name === selected)));
      const n = list.find((x) => x.name === selected);
      fill(more, selected && (n ? details(n, jobs)
        : h('p', {class: 'error'}, `No node ${selected}.`)));
    },
  };
}
