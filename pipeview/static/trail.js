// The followed object's path: one row per stage it passed, with the time,
// the latency since the previous row, and what the stage did. Rows marked
// "loop" are the watch events caused by the writes of the syncs on the
// path: the controller loop closing on itself.
//
// Rows are numbered from the trail's start (dropped + index), so an update
// only appends the new rows and removes those the server dropped.
import { el, clear, fmtTime } from './dom.js';

let shown = null; // { target, first, next, table, wrap, title, notes }

export function renderTrail(box, f) {
  if (!f) { box.hidden = true; shown = null; return; }
  const steps = f.steps || [];
  const target = f.target.resource + ' ' + f.target.key;
  if (!shown || shown.target !== target || box.hidden) build(box, target);
  box.hidden = false;
  box.dataset.steps = String(steps.length);
  shown.title.textContent = `following ${target} — ${steps.length} steps`;
  clear(shown.notes);
  if (steps.length === 0) {
    shown.notes.append(el('p', { class: 'note' }, 'nothing yet: the path appears as soon as the object passes a stage (events still kept by the stages are shown at once).'));
  }
  if (f.dropped > 0) shown.notes.append(el('p', { class: 'note' }, `${f.dropped} older steps dropped.`));
  if (f.gaps > 0) shown.notes.append(el('p', { class: 'note' }, `${f.gaps} times the stages moved faster than this view read them: some steps may be missing.`));
  // Drop the rows the server dropped, append the new ones.
  while (shown.first < f.dropped && shown.table.rows.length > 1) {
    shown.table.rows[1].remove();
    shown.first++;
  }
  shown.first = Math.max(shown.first, f.dropped);
  const atBottom = shown.wrap.scrollTop + shown.wrap.clientHeight >= shown.wrap.scrollHeight - 4;
  for (let abs = Math.max(shown.next, f.dropped); abs < f.dropped + steps.length; abs++) {
    shown.table.append(row(steps[abs - f.dropped]));
  }
  shown.next = Math.max(shown.next, f.dropped + steps.length);
  if (atBottom) shown.wrap.scrollTop = shown.wrap.scrollHeight; // keep the newest in sight unless the reader scrolled up
}

function build(box, target) {
  clear(box);
  const title = el('h2');
  const notes = el('div');
  const table = el('table', {}, el('tr', {}, el('th', {}, 'time'), el('th', {}, '+ms'), el('th', {}, 'stage'), el('th', {}, 'where'),
    el('th', {}, 'op'), el('th', {}, 'key'), el('th', {}, 'rv'), el('th', {}, 'detail')));
  const wrap = el('div', { class: 'scroll' }, table);
  box.append(title, notes, wrap);
  shown = { target, first: 0, next: 0, table, wrap, title, notes };
}

function row(s) {
  return el('tr', { class: `stage-${s.stage}` + (s.loop ? ' loop' : ''), 'data-stage': s.stage, 'data-id': s.id },
    el('td', {}, fmtTime(s.t)), el('td', { class: 'num' }, s.since.toFixed(s.since < 10 ? 2 : 0)),
    el('td', {}, s.loop ? `${s.stage} ⟲` : s.stage), el('td', {}, s.where), el('td', { class: 'op' }, s.op),
    el('td', {}, s.key || ''), el('td', {}, s.rv || ''), el('td', { class: /error/.test(s.detail || '') ? 'err' : '' }, s.detail || ''));
}
