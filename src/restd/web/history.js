// SPDX-License-Identifier: Apache-2.0
// history.js - cluster utilisation over time, collected by the page
// itself: each refresh reads /metrics and keeps one sample.  The history
// covers only the time the dashboard has been open in this tab (it is
// kept in sessionStorage, so a reload keeps it); droverrestd stores none.

import * as api from './api.js';
import {metricSum, parseMetrics} from './util.js';

const KEY = 'drover.history';
const MAX = 1800;          // samples kept (an hour at 2 s)
const MIN_GAP_MS = 900;    // at most one sample a second

let samples = load();
const listeners = new Set();

function load() {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) || '[]');
    return Array.isArray(s) ? s : [];
  } catch {
    return [];
  }
}

/** One sample from the Prometheus text of /metrics. */
export function fromMetrics(text, t = Date.now()) {
  const s = parseMetrics(text);
  const get = (name, use) => metricSum(s, name, {use});
  return {
    t,
    cpus: get('drover_cpus', 'total'),
    cpusAlloc: get('drover_cpus', 'allocated'),
    gpus: get('drover_gpus', 'total'),
    gpusAlloc: get('drover_gpus', 'allocated'),
    mem: get('drover_memory_bytes', 'total'),
    memAlloc: get('drover_memory_bytes', 'allocated'),
    running: metricSum(s, 'drover_jobs', {state: 'RUNNING'}),
    pending: metricSum(s, 'drover_jobs', {state: 'PENDING'}),
  };
}

/** Take a sample now (skipped when the last is under a second old). */
export async function sample() {
  const last = samples[samples.length - 1];
  if (last && Date.now() - last.t < MIN_GAP_MS) return;
  samples.push(fromMetrics(await api.metrics()));
  if (samples.length > MAX) samples = samples.slice(-MAX);
  try {
    sessionStorage.setItem(KEY, JSON.stringify(samples));
  } catch {
    // Storage full: the history stays in memory.
  }
  for (const f of listeners) f(samples);
}

/** The samples so far, oldest first (do not modify). */
export const all = () => samples;

/** Call f(samples) after each new sample; returns the way to stop. */
export function listen(f) {
  listeners.add(f);
  return () => listeners.delete(f);
}
