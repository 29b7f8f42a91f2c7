// The followed object's path: one row per stage it passed, with the time,
// the latency since the previous row, and what the stage did. Rows marked
// "loop" are the watch events caused by the writes of the syncs on the
// path: the controller loop closing on itself.
import { el, clear, fmtTime } from './dom.js';

export function renderTrail(box, f) {
  if (!f) { box.hidden = true; box.dataset.shown = ''; return; }
  const steps = f.steps || [];
  const last = steps[steps.length - 1] || {};
  const shown = [f.target.resource, f.target.key, steps.length, f.dropped, f.gaps, last.t, last.id, last.op].join('|');
  if (!box.hidden && box.dataset.shown === shown) return; // unchanged: keep the table (and its scroll)
  box.dataset.shown = shown;
  box.hidden = false;
  clear(box);
  box.dataset.steps = String(steps.length);
  box.append(el('h2', {}, `following ${f.target.resource} ${f.target.key} — ${steps.length} steps`));
  if (steps.length === 0) {
    box.append(el('p', { class: 'note' }, 'nothing yet: the path appears as soon as the object passes a stage (events still kept by the stages are shown at once).'));
  }
  if (f.dropped > 0) box.append(el('p', { class: 'note' }, `${f.dropped} older steps dropped.`));
  if (f.gaps > 0) box.append(el('p', { class: 'note' }, `${f.gaps} times the stages moved faster than this view read them: some steps may be missing.`));
  const t = el('table', {}, el('tr', {}, el('th', {}, 'time'), el('th', {}, '+ms'), el('th', {}, 'stage'), el('th', {}, 'where'),
    el('th', {}, 'op'), el('th', {}, 'key'), el('th', {}, 'rv'), el('th', {}, 'detail')));
  for (const s of steps) {
    const row = el('tr', { class: `stage-${s.stage}` + (s.loop ? ' loop' : ''), 'data-stage': s.stage, 'data-id': s.id },
      el('td', {}, fmtTime(s.t)), el('td', { class: 'num' }, s.since.toFixed(s.since < 10 ? 2 : 0)),
      el('td', {}, s.loop ? `${s.stage} ⟲` : s.stage), el('td', {}, s.where), el('td', { class: 'op' }, s.op),
      el('td', {}, s.key || ''), el('td', {}, s.rv || ''), el('td', { class: /error/.test(s.detail || '') ? 'err' : '' }, s.detail || ''));
    t.append(row);
  }
  const wrap = el('div', { class: 'scroll' }, t);
  box.append(wrap);
  wrap.scrollTop = wrap.scrollHeight; // the newest steps in sight
}
