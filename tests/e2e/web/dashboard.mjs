// SPDX-License-Identifier: Apache-2.0
// dashboard.mjs - drive droverrestd's dashboard in headless Chromium
// (playwright-core and Debian's /usr/bin/chromium), as a person would.
// Run by tests/e2e/test_dashboard.py, which starts the cluster, submits
// the jobs and checks the outcome.  Environment:
//   DASH_URL        droverrestd's base URL (http://127.0.0.1:PORT)
//   DASH_TOKEN      `scontrol token`'s line (SLURM_JWT=...)
//   DASH_BLOCKER    a running job that holds the GPUs the next one needs
//   DASH_WAITER     a job pending behind it (Resources); runs a few s
//   DASH_ARTIFACTS  where the screenshots go (a directory)
//   CHROMIUM        the browser (default /usr/bin/chromium)
// Exits 0 when every check passed; else 1, naming the failed step, with a
// screenshot of the moment (failure.png).
import {mkdirSync} from 'node:fs';
import path from 'node:path';
import {chromium} from 'playwright-core';

const env = (k, d) => {
  const v = process.env[k] ?? d;
  if (v === undefined) throw new Error(`${k} is not set`);
  return v;
};
const URL = env('DASH_URL');
const TOKEN = env('DASH_TOKEN');
const BLOCKER = env('DASH_BLOCKER');
const WAITER = env('DASH_WAITER');
const OUT = env('DASH_ARTIFACTS');
const T = 60_000;  // the longest wait of one step

mkdirSync(OUT, {recursive: true});
const problems = [];   // console errors, CSP refusals, page errors
let step = 'start';

function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
}

async function shot(page, name) {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({path: file, fullPage: true});
  console.log(`screenshot ${file}`);
}

/** Log in: a wrong token is refused, scontrol token's line is taken. */
async function login(page) {
  step = 'login';
  await page.goto(URL + '/');
  await page.waitForSelector('#login-form');
  check(page.url().endsWith('#/login'), 'no token: the login page');
  await shot(page, '01-login');
  await page.fill('#token', 'SLURM_JWT=not.a.token');
  await page.click('#login-button');
  await page.waitForSelector('#login-error:not([hidden])');
  check(/Not logged in/.test(await page.textContent('#login-error')),
        'a bad token is refused');
  await page.fill('#token', TOKEN);
  await page.click('#login-button');
  await page.waitForSelector('#queue tbody tr[data-job]', {timeout: T});
  check(await page.evaluate(() => !!sessionStorage.getItem('drover.token')),
        'the token is in sessionStorage');
  await page.selectOption('#refresh', '1000');
}

/** The queue: both jobs, a state filter, a search, sorting by id. */
async function queue(page) {
  step = 'queue';
  const row = (id) => `#queue tbody tr[data-job="${id}"]`;
  await page.waitForSelector(row(BLOCKER));
  await page.waitForSelector(row(WAITER));
  await page.selectOption('#f-state', 'PENDING');
  await page.waitForSelector(row(BLOCKER), {state: 'detached'});
  check(await page.isVisible(row(WAITER)), 'PENDING filter keeps the waiter');
  await page.selectOption('#f-state', 'all');
  await page.fill('#f-text', 'blocker');
  await page.waitForSelector(row(WAITER), {state: 'detached'});
  await page.fill('#f-text', '');
  await page.waitForSelector(row(WAITER));
  const ids = async () => page.$$eval('#queue tbody tr[data-job]',
    (rows) => rows.map((r) => Number(r.dataset.job)));
  await page.click('#queue th[data-col="job_id"]');   // ascending
  await page.waitForSelector('#queue th[data-col="job_id"].asc');
  const asc = await ids();
  check(asc.join() === [...asc].sort((a, b) => a - b).join(),
        `sorted by job id: ${asc}`);
  await page.click('#queue th[data-col="job_id"]');   // descending
  await page.waitForSelector('#queue th[data-col="job_id"].desc');
  const desc = await ids();
  check(desc[0] > desc[desc.length - 1], `sorted down: ${desc}`);
  await shot(page, '02-queue');
}

/** The node grid: GPUs in use colour the tiles; a node's page. */
async function nodes(page) {
  step = 'nodes';
  await page.click('#nav a[data-page="nodes"]');
  await page.waitForSelector('#node-grid .node[data-gpu-used="3"]');
  const tiles = await page.$$eval('#node-grid .node', (els) => els.map(
    (e) => ({name: e.dataset.node, used: e.dataset.gpuUsed,
             total: e.dataset.gpuTotal, bg: getComputedStyle(e).backgroundColor,
             cells: e.querySelectorAll('.gpu.used').length})));
  check(tiles.length === 2, `two node tiles: ${JSON.stringify(tiles)}`);
  for (const t of tiles)
    check(t.used === '3' && t.total === '4' && t.cells === 3
          && t.bg !== 'rgb(232, 241, 251)', `heat of ${JSON.stringify(t)}`);
  await page.click(`#node-grid .node[data-node="${tiles[0].name}"]`);
  await page.waitForSelector(`#node-details a[href="#/job/${BLOCKER}"]`);
  await shot(page, '03-nodes');
}

/** The waiter's page while it waits: why, in words. */
async function pending(page) {
  step = 'job page (pending)';
  await page.goto(`${URL}/#/job/${WAITER}`);
  await page.waitForSelector('#job-state[data-state="PENDING"]');
  await page.waitForSelector('#why-pending');
  const why = await page.textContent('#why-pending');
  check(/Reason: Resources/.test(why), `the reason: ${why}`);
  const explain = await page.textContent('#pending-explain');
  check(/gpu/i.test(explain) && !/no explanation/.test(explain),
        `pending_explain shown: ${explain}`);
  await shot(page, '04-job-pending');
}

/** Cancel the blocker from its page (asked twice). */
async function cancel(page) {
  step = 'cancel';
  await page.goto(`${URL}/#/job/${BLOCKER}`);
  await page.waitForSelector('#job-state[data-state="RUNNING"]');
  await page.waitForSelector(`#steps tr[data-step="${BLOCKER}.batch"]`);
  // Its usage now (sstat's figures): the batch step on its node.
  await page.waitForSelector(`#usage tr[data-step="batch"] td.efficiency`,
                             {timeout: T});
  await shot(page, '05a-job-usage');
  await page.click('#cancel');
  await page.click('#cancel-abort');             // "No": nothing happens
  await page.click('#cancel');
  await page.click('#cancel-confirm');
  await page.waitForSelector('#job-state[data-state="CANCELLED"]',
                             {timeout: T});
  check(!(await page.$('#cancel')), 'no cancel button once cancelled');
  await shot(page, '05-job-cancelled');
}

/** Open a second tab on the waiter's page (it asks for the token, then
 *  goes there), showing it PENDING. */
async function watcher(context) {
  step = 'second tab';
  const page = await context.newPage();
  listen(page);
  await page.goto(`${URL}/#/job/${WAITER}`);
  await page.waitForSelector('#login-form');
  await page.fill('#token', TOKEN);
  await page.click('#login-button');
  await page.selectOption('#refresh', '1000');
  await page.waitForSelector('#job-state[data-state="PENDING"]');
  return page;
}

/** Record the states the waiter's page shows, until it ends. */
async function watch(page) {
  const seen = [];
  const end = Date.now() + T;
  while (Date.now() < end) {
    const s = await page.getAttribute('#job-state', 'data-state')
      .catch(() => null);
    if (s && seen[seen.length - 1] !== s) seen.push(s);
    if (s === 'COMPLETED' || s === 'FAILED') break;
    await page.waitForTimeout(100);
  }
  return seen;
}

/** The waiter went PD -> R -> CD on its page. */
async function watched(page, seen) {
  step = 'watch PD->R->CD';
  console.log(`job ${WAITER} on its page: ${seen.join(' -> ')}`);
  const at = (s) => seen.indexOf(s);
  check(at('PENDING') === 0 && at('RUNNING') > 0
        && at('COMPLETED') > at('RUNNING'),
        `PD, R, CD in order: ${seen.join(' -> ')}`);
  await page.waitForSelector(
    `#steps tr[data-step="${WAITER}.batch"][data-state="COMPLETED"]`);
  await shot(page, '06-job-completed');
}

/** Utilisation: the history the page collected, in Chart.js charts. */
async function utilisation(page) {
  step = 'utilisation';
  await page.click('#nav a[data-page="utilisation"]');
  await page.waitForFunction(() =>
    Number(document.querySelector('#history-note')?.dataset.samples) >= 3);
  const drawn = await page.evaluate(() => {
    const c = window.Chart?.getChart('chart-use');
    return c ? c.data.datasets.map((d) => d.data.length) : null;
  });
  check(drawn && drawn.every((n) => n >= 3), `charts drawn: ${drawn}`);
  const peak = await page.evaluate(() => Math.max(
    ...window.Chart.getChart('chart-use').data.datasets[1].data.map(
      (p) => p.y)));
  check(peak >= 75, `GPU use seen at 75% (6 of 8): ${peak}`);
  await accounting(page);
  await shot(page, '07-utilisation');
}

/** The "From accounting" charts: the hourly rollup's CPUs and GPUs, the
 *  blocker's allocation among them, over 24 hours and then 7 days. */
async function accounting(page) {
  step = 'utilisation: from accounting';
  const hoursShown = (n) => page.waitForFunction((want) => {
    const d = document.querySelector('#acct-note')?.dataset;
    return Number(d?.hours) >= want && Number(d.allocatedCpuS) > 0 &&
      Number(d.allocatedGpuS) > 0;
  }, n);
  await hoursShown(24);
  const allocated = (id) => page.evaluate((id) => Math.max(
    ...window.Chart.getChart(id).data.datasets[0].data), id);
  const [cpu, gpu] = [await allocated('chart-acct-cpu'),
                      await allocated('chart-acct-gpu')];
  check(cpu > 0 && gpu > 0, `accounting shows allocation: ${cpu} ${gpu}`);
  const stacks = await page.evaluate(() =>
    window.Chart.getChart('chart-acct-gpu').data.datasets.map((d) => d.label));
  check(stacks.join() === 'Allocated,Reserved,Idle,Down',
        `stacked parts: ${stacks}`);
  // start=now-7days, rounded to the hour as sreport's: 7 days and the
  // hour in progress.
  await page.selectOption('#acct-range', '7d');
  await hoursShown(7 * 24);
  await page.selectOption('#acct-range', '24h');
  await page.waitForFunction(() =>
    Number(document.querySelector('#acct-note').dataset.hours) === 24);
}

/** Fail on what the page complains of (console errors, CSP refusals). */
function listen(page) {
  page.on('console', (m) => {
    // The refused login's 401 is expected; nothing else may complain.
    if (m.type() === 'error' && !/status of 401/.test(m.text()))
      problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext(
    {viewport: {width: 1280, height: 860}});
  const page = await context.newPage();
  listen(page);
  let seen = [];
  try {
    await login(page);
    await queue(page);
    await nodes(page);
    await pending(page);
    const tab = await watcher(context);
    const watching = watch(tab);
    await cancel(page);
    seen = await watching;
    await watched(tab, seen);
    await tab.close();
    await utilisation(page);
    step = 'logout';
    await page.click('#logout');
    await page.waitForSelector('#login-form');
    check(problems.length === 0, `no page errors: ${problems.join('; ')}`);
  } catch (e) {
    console.error(`FAILED at ${step}: ${e.message}`);
    if (problems.length) console.error(problems.join('\n'));
    await shot(page, 'failure').catch(() => {});
    await browser.close();
    process.exit(1);
  }
  await browser.close();
  console.log(JSON.stringify({ok: true, seen}));
}

main();
