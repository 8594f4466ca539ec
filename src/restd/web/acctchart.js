// SPDX-License-Identifier: Apache-2.0
// acctchart.js - the Utilisation page's "From accounting" charts: CPUs
// and GPUs hour by hour from droverdbd's hourly rollup
// (GET /drover/v1/utilization, the figures of `sreport cluster
// utilization`), as Chart.js stacked bars: allocated, reserved (planned
// and planned down), idle and down, each an hour's average count.

import * as api from './api.js';
import {h} from './util.js';

const RANGES = {'24h': '24 h', '7d': '7 days'};
const MIN_GAP_MS = 60000;  // droverdbd rolls up once a minute
const PARTS = [
  ['Allocated', '#2e86de', (b, t) => b.allocated[t]],
  ['Reserved', '#e67e22', (b, t) => b.planned[t] + b.planned_down[t]],
  ['Idle', '#95a5a6', (b, t) => b.idle[t]],
  ['Down', '#c0392b', (b, t) => b.down[t]],
];

const hourLabel = (t, days) => {
  const d = new Date(t * 1000);
  return days ? `${d.toLocaleDateString()} ${d.getHours()}:00`
    : `${d.getHours()}:00`;
};

/** Seconds of the hour starting at 't' gone by (the hour in progress
 *  counts up to now), at least 1. */
const hourSoFar = (t) =>
  Math.max(1, Math.min(3600, Date.now() / 1000 - t));

function barChart(canvas) {
  return new window.Chart(canvas, {
    type: 'bar',
    data: {labels: [], datasets: PARTS.map(([label, color]) => ({
      label, data: [], backgroundColor: color, borderWidth: 0}))},
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      interaction: {mode: 'index', intersect: false},
      scales: {x: {stacked: true, ticks: {maxTicksLimit: 12}},
               y: {stacked: true, beginAtZero: true}},
    },
  });
}

/** Mount the card into 'parent'; returns {refresh(), unmount()}. */
export function acctChart(parent) {
  const range = h('select', {id: 'acct-range'},
    Object.entries(RANGES).map(([v, label]) => h('option', {value: v},
                                                 label)));
  const note = h('p', {class: 'muted', id: 'acct-note'});
  const canvases = {cpu: h('canvas', {id: 'chart-acct-cpu'}),
                    'gres/gpu': h('canvas', {id: 'chart-acct-gpu'})};
  parent.append(h('div', {class: 'chart card', id: 'acct-card'},
    h('h2', {}, 'From accounting ', range), note,
    h('h3', {}, 'CPUs (average per hour)'),
    h('div', {class: 'chart-box'}, canvases.cpu),
    h('h3', {}, 'GPUs (average per hour)'),
    h('div', {class: 'chart-box'}, canvases['gres/gpu'])));
  if (!window.Chart) return {};
  const charts = Object.fromEntries(Object.entries(canvases).map(
    ([t, c]) => [t, barChart(c)]));
  let last = 0;

  function draw(doc) {
    const days = range.value !== '24h';
    for (const [t, chart] of Object.entries(charts)) {
      chart.data.labels = doc.hours.map((b) => hourLabel(b.start, days));
      PARTS.forEach(([, , f], i) => {
        chart.data.datasets[i].data =
          doc.hours.map((b) => f(b, t) / hourSoFar(b.start));
      });
      chart.update('none');
    }
    note.dataset.hours = doc.hours.length;
    note.dataset.allocatedCpuS = doc.totals.allocated.cpu;
    note.dataset.allocatedGpuS = doc.totals.allocated['gres/gpu'];
    note.textContent = `${doc.hours.length} hours from ` +
      `${new Date(doc.start * 1000).toLocaleString()} (droverdbd's hourly ` +
      'rollup, as sreport cluster utilization; the last hour so far).';
  }

  async function load(force) {
    if (!force && Date.now() - last < MIN_GAP_MS) return;
    last = Date.now();
    try {
      draw(await api.utilization(range.value));
    } catch (e) {
      last = 0;
      note.textContent = `No accounting figures: ${e.message}`;
      if (e.status !== 404) throw e;
    }
  }
  range.addEventListener('change', () => load(true).catch(() => {}));
  return {
    refresh: () => load(false),
    unmount() {
      for (const c of Object.values(charts)) c.destroy();
    },
  };
}
