// SPDX-License-Identifier: Apache-2.0
// utilisation.js - cluster utilisation over time, drawn by Chart.js from
// the samples history.js collects from /metrics while the page is open,
// and from accounting's hourly rollup (acctchart.js).

import {acctChart} from './acctchart.js';
import * as history from './history.js';
import {fill, h} from './util.js';

const pct = (a, b) => (b ? Math.round((1000 * a) / b) / 10 : 0);
const clock = (t) => new Date(t).toLocaleTimeString();

function lineChart(canvas, datasets, yOptions) {
  return new window.Chart(canvas, {
    type: 'line',
    data: {datasets},
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      parsing: false, normalized: true,
      interaction: {mode: 'nearest', axis: 'x', intersect: false},
      scales: {
        x: {type: 'linear', ticks: {callback: (v) => clock(v),
                                    maxTicksLimit: 8}},
        y: {beginAtZero: true, ...yOptions},
      },
      plugins: {tooltip: {callbacks: {title: (items) =>
        items.length ? clock(items[0].parsed.x) : ''}}},
    },
  });
}

const series = (label, color, points) => ({
  label, data: points, borderColor: color, backgroundColor: color,
  pointRadius: 0, borderWidth: 2, stepped: true,
});

function tiles(last) {
  const t = (label, value, id) => h('div', {class: 'stat', id},
    h('div', {class: 'stat-value'}, value), h('div', {}, label));
  if (!last) return [];
  return [
    t('CPUs allocated', `${last.cpusAlloc}/${last.cpus}`, 'stat-cpus'),
    t('GPUs allocated', `${last.gpusAlloc}/${last.gpus}`, 'stat-gpus'),
    t('Memory allocated', `${pct(last.memAlloc, last.mem)}%`, 'stat-mem'),
    t('Jobs running', String(last.running), 'stat-running'),
    t('Jobs pending', String(last.pending), 'stat-pending'),
  ];
}

export function utilisation(main) {
  const stats = h('div', {class: 'stats'});
  const note = h('p', {class: 'muted', id: 'history-note'});
  const useCanvas = h('canvas', {id: 'chart-use'});
  const jobsCanvas = h('canvas', {id: 'chart-jobs'});
  main.append(h('section', {}, h('h1', {}, 'Utilisation'), stats, note,
    h('div', {class: 'chart card'}, h('h2', {}, 'Allocated share (%)'),
      h('div', {class: 'chart-box'}, useCanvas)),
    h('div', {class: 'chart card'}, h('h2', {}, 'Jobs'),
      h('div', {class: 'chart-box'}, jobsCanvas))));
  const acct = acctChart(main.firstChild);

  if (!window.Chart) {
    note.textContent = 'Chart.js did not load: no charts.';
    return {};
  }
  const use = lineChart(useCanvas, [
    series('CPUs', '#2e86de', []), series('GPUs', '#c0392b', []),
    series('Memory', '#27ae60', [])], {max: 100});
  const jobs = lineChart(jobsCanvas, [
    series('Running', '#2e86de', []), series('Pending', '#e67e22', [])],
    {ticks: {precision: 0}});

  function draw(samples) {
    const p = (f) => samples.map((s) => ({x: s.t, y: f(s)}));
    use.data.datasets[0].data = p((s) => pct(s.cpusAlloc, s.cpus));
    use.data.datasets[1].data = p((s) => pct(s.gpusAlloc, s.gpus));
    use.data.datasets[2].data = p((s) => pct(s.memAlloc, s.mem));
    jobs.data.datasets[0].data = p((s) => s.running);
    jobs.data.datasets[1].data = p((s) => s.pending);
    use.update('none');
    jobs.update('none');
    fill(stats, tiles(samples[samples.length - 1]));
    note.dataset.samples = samples.length;
    note.textContent = samples.length
      ? `${samples.length} samples since ${clock(samples[0].t)}, taken by ` +
        'this page from /metrics at each refresh while the dashboard is ' +
        'open in this tab (droverrestd keeps no history).'
      : 'No samples yet.';
  }
  const stop = history.listen(draw);
  draw(history.all());
  return {
    refresh: () => acct.refresh?.(),
    unmount() {
      acct.unmount?.();
      stop();
      use.destroy();
      jobs.destroy();
    },
  };
}
