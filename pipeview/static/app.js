// The page's entry point: one WebSocket to the kcm manager, one update per
// period (the server aggregates and samples; the page never sees every
// event), rendered by diagram.js (every stage) and trail.js (one object).
import { Diagram } from './diagram.js';
import { renderTrail } from './trail.js';
import { el, clear, fmtTime, fmtMs } from './dom.js';

const state = { ws: null, follow: null, selected: '', updates: 0, lastResources: '' };
const diagram = new Diagram(document.getElementById('diagram'), {
  onSelect: (id) => { state.selected = state.selected === id ? '' : id; send({ select: state.selected }); },
  onKey: (resource, key) => { setFollowInputs(resource, key); follow(resource, key); },
});

document.getElementById('follow').addEventListener('submit', (ev) => {
  ev.preventDefault();
  follow(document.getElementById('resource').value, document.getElementById('key').value.trim());
});
document.getElementById('unfollow').addEventListener('click', () => follow('', ''));

function setFollowInputs(resource, key) {
  const sel = document.getElementById('resource');
  if ([...sel.options].some((o) => o.value === resource)) sel.value = resource;
  document.getElementById('key').value = key;
}

function follow(resource, key) {
  state.follow = key ? { resource, key } : null;
  send({ follow: state.follow });
}

function send(msg) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(msg));
}

function setStatus(text, cls) {
  const s = document.getElementById('status');
  s.textContent = text;
  s.className = 'status ' + (cls || '');
}

function connect() {
  const proto = location.protocol === 'https:' ? 'wss://' : 'ws://';
  const ws = new WebSocket(proto + location.host + '/debug/pipeline/ws');
  state.ws = ws;
  ws.onopen = () => {
    setStatus('live', 'live');
    if (state.follow) send({ follow: state.follow });
    if (state.selected) send({ select: state.selected });
  };
  ws.onmessage = (m) => {
    let u;
    try { u = JSON.parse(m.data); } catch { return; }
    render(u);
  };
  ws.onclose = () => {
    setStatus('disconnected — reconnecting', 'down');
    setTimeout(connect, 2000);
  };
}

// renderMs keeps how long the newest updates took to render (for the
// browser test, and for anyone curious: window.kcmRenderMs).
const renderMs = [];
window.kcmRenderMs = renderMs;

function render(u) {
  const began = performance.now();
  const v = u.view;
  state.updates++;
  document.body.dataset.updates = String(state.updates);
  renderResources(v.resources || []);
  renderLease(v.lease, v.now);
  diagram.render(v, u.selected || '', u.follow);
  renderDetail(v, u.selected || '');
  renderTrail(document.getElementById('trail'), u.follow);
  let s = 'live · ' + fmtTime(v.now);
  if (u.dropped > 0) s += ` · ${u.dropped} updates dropped (this browser was behind)`;
  if (u.problem) s += ' · ' + u.problem;
  setStatus(s, 'live');
  renderMs.push(performance.now() - began);
  if (renderMs.length > 100) renderMs.shift();
}

function renderResources(resources) {
  const joined = resources.join(',');
  if (joined === state.lastResources) return;
  state.lastResources = joined;
  const sel = document.getElementById('resource');
  const keep = sel.value;
  clear(sel);
  for (const r of resources) sel.append(el('option', { value: r }, r));
  if (resources.includes(keep)) sel.value = keep;
  else if (resources.includes('pods')) sel.value = 'pods';
}

function renderLease(l, now) {
  const box = document.getElementById('lease');
  clear(box);
  if (!l) {
    box.append(el('span', { class: 'note' }, 'leader election off (--leader-elect=false): this instance runs the controllers'));
    return;
  }
  box.dataset.holder = l.holder;
  box.append(
    el('span', {}, el('b', {}, 'Lease '), l.lease),
    el('span', { class: l.leading ? 'leading' : 'standby' }, l.leading ? 'leading' : 'standby'),
    el('span', {}, el('b', {}, 'holder '), l.holder || '(none)'),
    el('span', {}, el('b', {}, 'me '), l.identity),
  );
  if (l.leading) {
    box.append(
      el('span', {}, el('b', {}, 'last renew '), fmtMs(l.renewAgo) + ' ago'),
      el('span', {}, el('b', {}, 'step down in '), fmtMs(l.stepDownIn) + ' without renewal'),
    );
  }
  box.append(
    el('span', {}, el('b', {}, 'expires in '), fmtMs(l.expiresIn)),
    el('span', { class: 'note' }, `duration ${fmtMs(l.leaseDuration)}, renew deadline ${fmtMs(l.renewDeadline)}, ${l.transitions} transitions`),
  );
}

function renderDetail(v, selected) {
  const box = document.getElementById('detail');
  const st = selected ? Diagram.find(v, selected) : null;
  if (!st) { box.hidden = true; return; }
  box.hidden = false;
  clear(box);
  box.append(el('h2', {}, `${st.stage} · ${st.source}${st.handler ? ' → ' + st.handler : ''} — newest ${st.recent.length} events`));
  const t = el('table', {}, el('tr', {}, el('th', {}, 'time'), el('th', {}, 'op'), el('th', {}, 'key'), el('th', {}, 'rv'), el('th', {}, 'detail')));
  for (const e of st.recent) {
    t.append(el('tr', {}, el('td', {}, fmtTime(e.t)), el('td', {}, e.op), el('td', {}, e.key || ''), el('td', {}, e.rv || ''), el('td', {}, e.detail || '')));
  }
  box.append(el('div', { class: 'scroll' }, t));
}

connect();
