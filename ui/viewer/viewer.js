'use strict';
// Everything here comes from logs/…; page text is set with textContent, never parsed as HTML.
// Every path is relative to /viewer, so the viewer works wherever the server is mounted.
const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;
const state = {
  sessions: [],
  listed: '',
  session: null,
  events: [],
  /** Lines of the session's log already read: the next poll asks for those after it. */
  total: 0,
  shown: [],
  open: -1,
  collapsed: new Set(),
  timer: 0,
  /** Bumped by each full read, so a poll answered after it does not append twice. */
  epoch: 0,
};

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const c of children) if (c != null) node.append(c);
  return node;
}

async function getJson(path) {
  const response = await fetch(path, { credentials: 'same-origin' });
  const body = await response.json();
  if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
  return body;
}

const time = (iso) => (iso ? new Date(iso).toLocaleString() : '');
const clock = (iso) => (iso ? new Date(iso).toLocaleTimeString() : '');
const logUrl = (session) => `logs/${encodeURIComponent(session)}`;
const frameUrl = (session, name) => `${logUrl(session)}/frames/${encodeURIComponent(name)}`;
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

function siteOf(url) {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

function describeTarget(target) {
  if (!target || !target.element) return '';
  const e = target.element;
  const what = e.role || e.tag;
  const name = e.name || e.text;
  return `${what}${name ? ` "${name}"` : ''} (by ${target.strategy})`;
}

/** The run a line belongs to: a step's own run, or the run a flow_run line reports. */
function runIdOf(e) {
  if (e.run) return e.run.id;
  if (e.op === 'flow_run' && e.data && typeof e.data.run_id === 'string') return e.data.run_id;
  return null;
}

/** Each run of the session: its flow, steps, errors and tolerated failures, and its verdict. */
function runsOf(events) {
  const runs = new Map();
  for (const e of events) {
    const id = runIdOf(e);
    if (!id) continue;
    let run = runs.get(id);
    if (!run) runs.set(id, (run = { id, flow: '', steps: 0, errors: 0, tolerated: 0, status: '' }));
    if (e.run) {
      run.flow = e.run.flow;
      run.steps = Math.max(run.steps, e.run.step);
      if (e.counts_as_error) run.errors++;
      else if (!e.ok) run.tolerated++;
    } else {
      run.flow = run.flow || e.data.flow || '';
      run.status = e.data.status === 'ok' ? 'passed' : 'failed';
    }
  }
  for (const run of runs.values()) run.status ||= run.errors ? 'failed' : 'running';
  return runs;
}

/** Lines in display order: a run's lines together, where its first line was. */
function grouped(events) {
  const items = [];
  const byRun = new Map();
  for (const e of events) {
    const id = runIdOf(e);
    if (!id) items.push({ event: e });
    else if (byRun.has(id)) byRun.get(id).events.push(e);
    else {
      const group = { id, events: [e] };
      byRun.set(id, group);
      items.push(group);
    }
  }
  return items;
}

function shotWith(event, session) {
  const wrap = el('div', { className: 'shot' });
  const img = el('img', { alt: `frame of ${event.action_id}`, loading: 'lazy' });
  img.src = frameUrl(session, event.frame);
  wrap.append(img);
  if (event.box && event.viewport) {
    const b = event.box;
    const v = event.viewport;
    const box = el('div', { className: 'box' });
    box.style.left = `${(b.x / v.width) * 100}%`;
    box.style.top = `${(b.y / v.height) * 100}%`;
    box.style.width = `${Math.max((b.width / v.width) * 100, 0.5)}%`;
    box.style.height = `${Math.max((b.height / v.height) * 100, 0.5)}%`;
    wrap.append(box);
  }
  return wrap;
}

function renderSessions() {
  const focused = document.activeElement && document.activeElement.dataset.session;
  const list = $('sessions');
  list.replaceChildren();
  if (state.sessions.length === 0)
    list.append(el('li', { className: 'meta', textContent: 'No session has a log yet.' }));
  for (const s of state.sessions) {
    const button = el(
      'button',
      { type: 'button', className: 'session' },
      el('span', { className: 'name', textContent: s.session }),
      el(
        'span',
        { className: 'meta' },
        `${s.ops} ops · `,
        el('span', { className: s.errors ? 'errs' : '', textContent: `${s.errors} errors` }),
        ` · ${time(s.last_at)}`,
      ),
    );
    button.dataset.session = s.session;
    if (s.session === state.session) button.setAttribute('aria-current', 'true');
    button.addEventListener('click', () => choose(s.session).catch(showError));
    list.append(el('li', {}, button));
    if (s.session === focused) button.focus();
  }
}

/** Up and Down move between sessions; Enter and Space open one (they are buttons). */
function moveInSessions(e) {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const buttons = [...$('sessions').querySelectorAll('button')];
  const at = buttons.indexOf(document.activeElement);
  const next = buttons[at + (e.key === 'ArrowDown' ? 1 : -1)];
  if (next) next.focus();
  e.preventDefault();
}

function fillSelect(select, values, label) {
  const keep = select.value;
  select.replaceChildren(el('option', { value: '', textContent: `all ${label}` }));
  for (const v of values) select.append(el('option', { value: v, textContent: v }));
  select.value = values.includes(keep) ? keep : '';
}

function renderSummary() {
  const events = state.events;
  const errors = events.filter((e) => e.counts_as_error).length;
  const tolerated = events.filter((e) => !e.ok && !e.counts_as_error).length;
  const sites = new Set(events.map((e) => e.url && siteOf(e.url)).filter(Boolean));
  const first = events[0];
  const last = events[events.length - 1];
  const elapsed =
    first && last ? Math.round((Date.parse(last.at) - Date.parse(first.at)) / 1000) : 0;
  $('title').textContent = state.session || 'No session chosen';
  $('summary').textContent = state.session
    ? `${events.length} ops · ${errors} errors${tolerated ? ` · ${tolerated} tolerated` : ''} · ${elapsed} s from ${time(first && first.at)} · sites: ${[...sites].join(', ') || 'none'}`
    : '';
  fillSelect($('f-op'), [...new Set(events.map((e) => e.op))].sort(), 'ops');
  fillSelect($('f-tab'), [...new Set(events.map((e) => e.tab).filter(Boolean))].sort(), 'tabs');
}

function outcomeOf(e) {
  const kind = e.error ? e.error.kind : 'error';
  if (e.ok) return { className: 'ok', text: 'ok' };
  if (!e.counts_as_error) return { className: 'tolerated', text: `failed (tolerated): ${kind}` };
  return { className: 'fail', text: `failed: ${kind}` };
}

function rowOf(e, index) {
  const left = e.frame
    ? shotWith(e, state.session)
    : el('div', {
        className: 'noshot',
        textContent: e.frame_skipped ? 'frame cap reached' : 'no frame',
      });
  if (e.frame) left.addEventListener('click', () => openFrame(index));
  const outcome = outcomeOf(e);
  const step = e.run ? `step ${e.run.step}${e.run.step_id ? ` (${e.run.step_id})` : ''} · ` : '';
  const right = el(
    'div',
    {},
    el(
      'div',
      { className: 'head' },
      el('span', { className: 'op', textContent: e.op }),
      el('span', { className: `outcome ${outcome.className}`, textContent: outcome.text }),
      el('span', {
        className: 'dim',
        textContent: `${step}${e.action_id} · ${clock(e.at)} · ${e.duration_ms} ms${e.tab ? ` · ${e.tab}` : ''}`,
      }),
    ),
    e.target
      ? el('div', { className: 'detail', textContent: `on ${describeTarget(e.target)}` })
      : null,
    e.error ? el('div', { className: 'detail error', textContent: e.error.message }) : null,
    e.url
      ? el(
          'div',
          { className: 'detail dim' },
          `${e.title ? `${e.title} — ` : ''}`,
          el('code', { textContent: e.url }),
        )
      : null,
    el(
      'div',
      { className: 'detail' },
      el('code', { className: 'args', textContent: JSON.stringify(e.args) }),
    ),
    e.notes && e.notes.length
      ? el('div', { className: 'detail dim', textContent: `notes: ${e.notes.join('; ')}` })
      : null,
    e.verification && e.verification !== 'not_checked'
      ? el('div', { className: 'detail dim', textContent: `verification: ${e.verification}` })
      : null,
  );
  const tint = e.ok ? '' : e.counts_as_error ? ' failed' : ' tolerated';
  const row = el('li', { className: `row${tint}` }, left, right);
  row.dataset.actionId = e.action_id;
  row.dataset.op = e.op;
  return row;
}

/** A run's header (flow, verdict, counts) over its steps; collapsing it is kept across refreshes. */
function runItem(group, run, rows) {
  const details = el('details', { className: run.status === 'failed' ? 'failed' : '' });
  details.open = !state.collapsed.has(group.id);
  details.addEventListener('toggle', () => {
    if (details.open) state.collapsed.delete(group.id);
    else state.collapsed.add(group.id);
  });
  const counts = [plural(run.steps, 'step'), plural(run.errors, 'error')];
  if (run.tolerated) counts.push(`${run.tolerated} tolerated`);
  details.append(
    el(
      'summary',
      {},
      `Flow ${run.flow} · `,
      el('span', { className: `verdict ${run.status}`, textContent: run.status }),
      ` · ${counts.join(' · ')} · `,
      el('span', { className: 'dim', textContent: group.id }),
    ),
    el('ol', {}, ...rows),
  );
  const item = el('li', { className: 'run' }, details);
  item.dataset.run = group.id;
  item.dataset.flow = run.flow;
  item.dataset.verdict = run.status;
  return item;
}

function renderTimeline() {
  const op = $('f-op').value;
  const tab = $('f-tab').value;
  const errorsOnly = $('f-errors').checked;
  const framesOnly = $('f-frames').checked;
  const matching = state.events.filter(
    (e) =>
      (!op || e.op === op) &&
      (!tab || e.tab === tab) &&
      (!errorsOnly || e.counts_as_error) &&
      (!framesOnly || e.frame),
  );
  const runs = runsOf(state.events);
  const items = grouped(matching);
  state.shown = items.flatMap((item) => item.events || [item.event]);
  let index = 0;
  const list = $('timeline');
  list.replaceChildren(
    ...items.map((item) =>
      item.event
        ? rowOf(item.event, index++)
        : runItem(
            item,
            runs.get(item.id),
            item.events.map((e) => rowOf(e, index++)),
          ),
    ),
  );
  $('empty').textContent = state.session
    ? state.shown.length
      ? ''
      : 'No op matches these filters.'
    : 'Pick a session on the left.';
  $('empty').hidden = state.shown.length > 0;
}

function openFrame(index) {
  const e = state.shown[index];
  if (!e || !e.frame) return;
  state.open = index;
  const lightbox = $('lightbox');
  lightbox.replaceChild(shotWith(e, state.session), lightbox.querySelector('.shot'));
  const caption = $('caption');
  caption.className = e.counts_as_error ? 'failed' : '';
  caption.textContent = `${index + 1}/${state.shown.length} · ${e.action_id} · ${e.op} · ${
    e.ok ? 'ok' : `${outcomeOf(e).text}${e.error ? ` — ${e.error.message}` : ''}`
  }${e.url ? ` · ${e.url}` : ''} (← → to step, Esc to close)`;
  lightbox.classList.add('open');
}

function step(direction) {
  for (let i = state.open + direction; i >= 0 && i < state.shown.length; i += direction) {
    if (state.shown[i].frame) return openFrame(i);
  }
}

function closeFrame() {
  state.open = -1;
  $('lightbox').classList.remove('open');
}

async function loadSessions() {
  const sessions = (await getJson('logs')).sessions;
  const listed = JSON.stringify(sessions);
  state.sessions = sessions;
  // Rebuilt only when something changed, so a poll does not disturb the keyboard focus.
  if (listed !== state.listed) renderSessions();
  state.listed = listed;
}

async function choose(session) {
  state.session = session;
  const epoch = ++state.epoch;
  state.collapsed.clear();
  $('title').textContent = session;
  history.replaceState(null, '', `?session=${encodeURIComponent(session)}`);
  renderSessions();
  const page = await getJson(`${logUrl(session)}?limit=5000`);
  if (epoch !== state.epoch) return;
  state.events = page.events;
  state.total = page.total;
  renderSummary();
  renderTimeline();
}

/** Asks only for the lines written since the last read, and appends them. */
async function pollLog() {
  const { session, epoch } = state;
  if (!session) return;
  const page = await getJson(`${logUrl(session)}?since=${state.total}&limit=5000`);
  if (epoch !== state.epoch) return;
  // A shorter log was removed and written anew: read it whole.
  if (page.total < state.total) return choose(session);
  state.total = page.total;
  if (!page.events.length) return;
  state.events = state.events.concat(page.events);
  renderSummary();
  renderTimeline();
}

async function refresh() {
  try {
    await loadSessions();
    const address = new URLSearchParams(location.search).get('session');
    const wanted = address || new URLSearchParams(location.hash.slice(1)).get('session');
    const session = state.session || wanted || (state.sessions[0] && state.sessions[0].session);
    if (session) await choose(session);
    else renderTimeline();
  } catch (e) {
    showError(e);
  }
}

function showError(e) {
  $('empty').hidden = false;
  $('empty').textContent = `Could not read the logs: ${e.message}`;
}

function schedulePoll() {
  clearTimeout(state.timer);
  if (!$('f-live').checked) return;
  state.timer = setTimeout(async () => {
    try {
      await loadSessions();
      await pollLog();
    } catch {
      // The server may be restarting; the next poll tries again.
    }
    schedulePoll();
  }, POLL_MS);
}

for (const id of ['f-op', 'f-tab', 'f-errors', 'f-frames'])
  $(id).addEventListener('change', renderTimeline);
$('f-live').addEventListener('change', schedulePoll);
$('refresh').addEventListener('click', refresh);
$('sessions').addEventListener('keydown', moveInSessions);
$('lightbox').addEventListener('click', (e) => {
  if (e.target === $('lightbox')) closeFrame();
});
document.addEventListener('keydown', (e) => {
  if (state.open < 0) return;
  if (e.key === 'ArrowRight') step(1);
  else if (e.key === 'ArrowLeft') step(-1);
  else if (e.key === 'Escape') closeFrame();
  else return;
  e.preventDefault();
});
refresh().then(() => {
  document.body.setAttribute('data-loaded', 'true');
  schedulePoll();
});
