// The diagram: kube-apiserver, then every informer's socket → fifo →
// store, its handlers, every controller's queue → sync, the clients'
// writes, and the wire from the writes back to the apiserver where the
// controller loop closes. Boxes are built once per shape and updated in
// place; wires are SVG paths between box edges.
import { el, clear, fmtRate, fmtTime } from './dom.js';

const RECENT = 6;

export class Diagram {
  constructor(root, { onSelect, onKey }) {
    this.root = root;
    this.onSelect = onSelect;
    this.onKey = onKey;
    this.shape = '';
    this.boxes = new Map();
    this.wires = [];
    window.addEventListener('resize', () => this.drawWires());
    this.wiresFor = '';
  }

  // find returns the stage with this id in view v.
  static find(v, id) {
    for (const s of Diagram.stages(v)) if (s.id === id) return s;
    return null;
  }

  static stages(v) {
    const out = [];
    for (const i of v.informers) out.push(i.socket, i.fifo, i.store, ...i.handlers);
    for (const c of v.controllers) out.push(c.enqueue, c.sync);
    out.push(...v.writers);
    return out.filter(Boolean);
  }

  render(v, selected, follow) {
    v = { ...v, writers: v.writers.filter((w) => w.total > 0) }; // a client that never wrote (it only reads) is left out
    const shape = JSON.stringify([v.informers.map((i) => [i.name, i.handlers.map((h) => h.id)]), v.controllers.map((c) => c.name), v.writers.map((w) => w.id)]);
    if (shape !== this.shape) this.build(v, shape);
    const onPath = new Set((follow && follow.steps || []).map((s) => s.id));
    for (const [i, inf] of v.informers.entries()) {
      for (const s of [inf.socket, inf.fifo, inf.store, ...inf.handlers]) if (s) this.fill(s, inf.resource, selected, onPath);
      void i;
    }
    for (const c of v.controllers) for (const s of [c.enqueue, c.sync]) if (s) this.fill(s, '', selected, onPath);
    for (const w of v.writers) this.fill(w, null, selected, onPath);
    if (this.wiresFor !== this.shape) { // boxes keep their size: the wires move only with the shape
      this.wiresFor = this.shape;
      this.drawWires();
    }
  }

  build(v, shape) {
    this.shape = shape;
    this.boxes.clear();
    this.wires = [];
    clear(this.root);
    const api = el('div', { class: 'apiserver', id: 'apiserver' }, 'kube-apiserver');
    const infCol = el('div', { class: 'col informers' });
    const hCol = el('div', { class: 'col handlers' });
    const cCol = el('div', { class: 'col controllers' });
    const wCol = el('div', { class: 'col writers' });
    const svg = el('svg', { class: 'wires' });
    this.svg = svg;
    this.root.append(svg, api, infCol, hCol, cCol, wCol);
    for (const inf of v.informers) {
      const card = el('div', { class: 'informer', 'data-informer': inf.name }, el('h2', {}, `informer ${inf.name}`));
      const ids = [];
      for (const s of [inf.socket, inf.fifo, inf.store]) if (s) { card.append(this.box(s, s.stage)); ids.push(s.id); }
      infCol.append(card);
      if (inf.socket) this.wires.push(['apiserver', inf.socket.id, 'in']);
      for (let k = 1; k < ids.length; k++) this.wires.push([ids[k - 1], ids[k], 'flow']);
      for (const h of inf.handlers) {
        hCol.append(this.box(h, `${inf.name} → ${h.handler}`));
        if (inf.store) this.wires.push([inf.store.id, h.id, 'flow']);
        const c = v.controllers.find((c) => c.name === h.handler);
        if (c && c.enqueue) this.wires.push([h.id, c.enqueue.id, 'flow']);
      }
    }
    for (const c of v.controllers) {
      const card = el('div', { class: 'controller', 'data-controller': c.name }, el('h2', {}, c.name));
      if (c.enqueue) card.append(this.box(c.enqueue, 'queue'));
      if (c.sync) card.append(this.box(c.sync, 'sync'));
      cCol.append(card);
      if (c.enqueue && c.sync) this.wires.push([c.enqueue.id, c.sync.id, 'flow']);
      const w = v.writers.find((w) => w.source.includes(`(${c.name})`));
      if (c.sync && w) this.wires.push([c.sync.id, w.id, 'flow']);
    }
    for (const w of v.writers) {
      const who = /\(([^()]+)\)$/.exec(w.source);
      wCol.append(this.box(w, 'writes · ' + (who ? who[1] : w.source)));
      this.wires.push([w.id, 'apiserver', 'back']);
    }
  }

  box(s, title) {
    const name = el('span', { class: 'name', title }, title);
    const total = el('span', { class: 'total' });
    const rate = el('div', { class: 'rate' });
    const gauges = el('div', { class: 'gauges' });
    const list = el('ol');
    const root = el('div', { class: 'box', id: 'box-' + s.id, 'data-stage': s.id }, el('h3', {}, name, total), rate, gauges, list);
    root.addEventListener('click', (ev) => {
      const k = ev.target.closest('.key');
      if (k && k.dataset.res) { this.onKey(k.dataset.res, k.dataset.k); return; }
      this.onSelect(s.id);
    });
    const rows = [];
    for (let i = 0; i < RECENT; i++) {
      const op = el('span', { class: 'op' });
      const key = el('span', { class: 'key' });
      const rv = document.createTextNode('');
      const li = el('li', {}, op, ' ', key, rv);
      list.append(li);
      rows.push({ li, op, key, rv });
    }
    this.boxes.set(s.id, { root, total, rate, gauges, rows, gaugeShape: '' });
    return root;
  }

  // fill updates a box in place: text only, no new nodes unless its
  // gauges change.
  fill(s, resource, selected, onPath) {
    const b = this.boxes.get(s.id);
    if (!b) return;
    b.root.classList.toggle('selected', s.id === selected);
    b.root.classList.toggle('onpath', onPath.has(s.id));
    b.root.dataset.total = String(s.total);
    b.total.textContent = `${s.total} total`;
    b.rate.textContent = fmtRate(s.rate);
    b.rate.append(el('small', {}, ' /s'));
    const gshape = s.gauges.map((g) => g.name).join(',');
    if (gshape !== b.gaugeShape) {
      b.gaugeShape = gshape;
      clear(b.gauges);
      b.gaugeValues = s.gauges.map((g) => {
        const v = el('b');
        b.gauges.append(el('span', { 'data-gauge': g.name }, `${g.name} `, v));
        return v;
      });
    }
    s.gauges.forEach((g, i) => { b.gaugeValues[i].textContent = String(g.value); });
    b.rows.forEach((r, i) => {
      const e = s.recent[i];
      if (!e) {
        r.li.hidden = true;
        r.li.dataset.key = '';
        return;
      }
      const res = resource === null ? e.res : (resource || '');
      r.li.hidden = false;
      r.li.dataset.key = e.key || '';
      r.li.title = `${fmtTime(e.t)} ${e.detail || ''}`;
      r.op.textContent = e.op;
      r.key.textContent = e.key || '';
      r.key.dataset.res = e.key && res ? res : '';
      r.key.dataset.k = e.key || '';
      r.key.title = e.key && res ? `follow ${res} ${e.key}` : '';
      r.rv.textContent = e.rv ? '@' + e.rv : '';
    });
  }

  drawWires() {
    if (!this.svg) return;
    clear(this.svg);
    const base = this.root.getBoundingClientRect();
    const rect = (id) => {
      const n = id === 'apiserver' ? document.getElementById('apiserver') : document.getElementById('box-' + id);
      if (!n) return null;
      const r = n.getBoundingClientRect();
      return { l: r.left - base.left, r: r.right - base.left, t: r.top - base.top, b: r.bottom - base.top, y: (r.top + r.bottom) / 2 - base.top };
    };
    for (const [from, to, kind] of this.wires) {
      const a = rect(from), z = rect(to);
      if (!a || !z) continue;
      let d;
      if (kind === 'back') {
        // along the bottom of the diagram, into the apiserver's foot: the loop closing
        const y = base.height - 6;
        const x = (a.l + a.r) / 2;
        d = `M${x},${a.b} L${x},${y} L${(z.l + z.r) / 2},${y} L${(z.l + z.r) / 2},${z.b}`;
      } else {
        const x1 = kind === 'in' ? a.r : a.r, y1 = kind === 'in' ? Math.min(Math.max(z.y, a.t + 10), a.b - 10) : a.y;
        const mid = (x1 + z.l) / 2;
        d = `M${x1},${y1} C${mid},${y1} ${mid},${z.y} ${z.l},${z.y}`;
      }
      const color = kind === 'back' ? '#c2410c' : '#9fb0c8';
      this.svg.append(el('path', { d, fill: 'none', stroke: color, 'stroke-width': kind === 'back' ? '1.5' : '1.2', 'stroke-dasharray': kind === 'back' ? '5 4' : '' }));
    }
  }
}
