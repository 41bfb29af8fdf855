// flame.js: the calling-context tree as an icicle graph (the root on top,
// each frame as wide as its inclusive count), drawn as positioned
// elements: zoom by click, search, tooltip, and for a comparison each
// frame coloured by its change against the base.

const ROW = 18;          // a frame's height in pixels
const MIN_WIDTH = 0.5;   // frames narrower are not drawn (their parent holds them)
const MAX_DRAWN = 20000; // frames drawn at once, at most
const MIN_TEXT = 16;     // frames narrower are drawn without their name (the tooltip has it)

/** sumUp gives each frame's inclusive count: its own and its descendants'. */
function sumUp(parent, self) {
  const incl = Float64Array.from(self);
  for (let i = parent.length - 1; i > 0; i--) incl[parent[i]] += incl[i];
  return incl;
}

/** FlameModel is a view's tree with what the graph asks of it. */
class FlameModel {
  constructor(view) {
    const t = view.tree;
    this.view = view;
    this.n = t.parent.length;
    this.parent = t.parent;
    this.fn = t.fn;
    this.labels = t.labels || {};
    this.merged = t.merged || {};
    this.rows = view.table.rows;
    this.modules = view.table.modules;
    this.self = {instructions: t.self, blocks: t.blocks};
    this.incl = {instructions: sumUp(t.parent, t.self), blocks: sumUp(t.parent, t.blocks)};
    this.diff = !!t.base_self;
    if (this.diff) {
      this.baseSelf = {instructions: t.base_self, blocks: t.base_blocks};
      this.baseIncl = {instructions: t.base_incl, blocks: t.base_blocks_incl};
    }
    // Children as one array of runs, a run per frame.
    const start = new Int32Array(this.n + 1);
    for (let i = 1; i < this.n; i++) start[t.parent[i] + 1]++;
    for (let i = 0; i < this.n; i++) start[i + 1] += start[i];
    const kids = new Int32Array(Math.max(0, this.n - 1));
    const at = start.slice(0, this.n);
    for (let i = 1; i < this.n; i++) kids[at[t.parent[i]]++] = i;
    this.start = start;
    this.kids = kids;
    this.sorted = {};
  }

  /** children lists frame i's children, largest first by the metric (each
   * frame's sorted when first asked for). */
  children(i, metric) {
    let s = this.sorted[metric];
    if (!s) {
      s = this.sorted[metric] = {kids: this.kids.slice(), done: new Uint8Array(this.n)};
    }
    const a = this.start[i], b = this.start[i + 1];
    if (!s.done[i] && b - a > 1) {
      const incl = this.incl[metric];
      s.kids.set(Array.from(s.kids.subarray(a, b)).sort((x, y) => incl[y] - incl[x] || x - y), a);
    }
    s.done[i] = 1;
    return s.kids.subarray(a, b);
  }

  isOther(i) { return this.merged[i] !== undefined; }
  isFunction(i) { return this.fn[i] >= 0; }

  /** name is what frame i is called. */
  name(i) {
    const f = this.fn[i];
    if (f >= 0) return this.rows[f][0];
    if (this.isOther(i)) return 'other (' + group(this.merged[i]) + ' frames)';
    return this.labels[i] || '?';
  }

  module(i) {
    const f = this.fn[i];
    return f >= 0 ? (this.modules[this.rows[f][2]] || '') : '';
  }

  /** base is frame i's count in the base (-1: the base has no such frame). */
  base(i, metric, mode) {
    return (mode === 'self' ? this.baseSelf : this.baseIncl)[metric][i];
  }

  head(i, metric, mode) {
    return (mode === 'self' ? this.self : this.incl)[metric][i];
  }

  /** delta is frame i's change against the base. */
  delta(i, metric, mode) {
    return this.head(i, metric, mode) - Math.max(0, this.base(i, metric, mode));
  }

  /** within says whether frame i is frame a or below it. */
  within(i, a) {
    for (; i >= 0; i = this.parent[i]) if (i === a) return true;
    return false;
  }
}

/** moduleHues colour each module's frames in a family of its own. */
const moduleHues = [28, 45, 12, 190, 150, 265, 330, 95, 210, 0];

/** Flame draws a FlameModel into a box and keeps the view's state. */
class Flame {
  constructor(model, box, onchange) {
    this.m = model;
    this.box = box;
    this.onchange = onchange;
    this.metric = 'instructions';
    this.mode = 'incl';
    this.root = 0;
    this.zoom = 0;
    this.match = null;
    this.drawn = 0;
  }

  /** colour gives frame i's background and what its change is. */
  colour(i) {
    const m = this.m;
    if (m.diff) {
      const b = m.base(i, this.metric, this.mode);
      const h = m.head(i, this.metric, this.mode);
      const d = h - Math.max(0, b);
      if (d === 0) return ['same', '#e3e3e3'];
      // Intensity by the change against the frame's count, on a log
      // scale: 0.01 % faint, 1 % half, 100 % (or new) full.
      const r = b <= 0 ? 1 : Math.min(1, Math.abs(d) / Math.max(b, h));
      const l = 86 - 44 * Math.min(1, Math.max(0.1, (Math.log10(r) + 4) / 4));
      return [b < 0 ? 'new' : d > 0 ? 'grow' : 'shrink', 'hsl(' + (d > 0 ? 2 : 214) + ',78%,' + l.toFixed(0) + '%)'];
    }
    if (!m.isFunction(i)) return ['', m.isOther(i) ? '#dcdcdc' : '#c4c8cc'];
    const hue = moduleHues[(m.fn[i] >= 0 ? m.rows[m.fn[i]][2] : 0) % moduleHues.length];
    const l = 60 + hashString(m.name(i)) % 16;
    return ['', 'hsl(' + hue + ',72%,' + l + '%)'];
  }

  /** render draws the frames of the zoomed frame's subtree wide enough to see. */
  render() {
    const m = this.m, metric = this.metric;
    const W = Math.max(200, this.box.clientWidth);
    const incl = m.incl[metric];
    const zv = incl[this.zoom];
    const path = [];
    for (let a = this.zoom; a >= 0; a = m.parent[a]) {
      path.push(a);
      if (a === this.root) break;
    }
    path.reverse();
    const html = [];
    let maxDepth = 0;
    const frame = (i, x, w, d, cls) => {
      const [kind, bg] = this.colour(i);
      let c = 'fr' + cls;
      if (this.match && this.match[i]) c += ' match';
      if (m.diff && m.delta(i, metric, 'self') !== 0) c += ' selfchg';
      if (m.isOther(i)) c += ' other';
      else if (!m.isFunction(i)) c += ' label';
      html.push('<div class="' + c + '" data-n="' + i + '"' + (kind ? ' data-change="' + kind + '"' : '') +
        ' style="left:' + x.toFixed(2) + 'px;width:' + w.toFixed(2) + 'px;top:' + (d * ROW) + 'px;background:' + bg + '">' +
        (w >= MIN_TEXT ? esc(m.name(i)) : '') + '</div>');
      maxDepth = Math.max(maxDepth, d);
    };
    for (let k = 0; k < path.length - 1; k++) frame(path[k], 0, W, k, ' anc');
    let drawn = 0;
    if (zv > 0) {
      const stack = [this.zoom, 0, path.length - 1];
      while (stack.length && drawn < MAX_DRAWN) {
        const d = stack.pop(), x = stack.pop(), i = stack.pop();
        frame(i, x, incl[i] / zv * W, d, i === this.zoom ? ' zoomed' : '');
        drawn++;
        let cx = x;
        for (const c of m.children(i, metric)) {
          const cw = incl[c] / zv * W;
          if (cw < MIN_WIDTH) break;
          stack.push(c, cx, d + 1);
          cx += cw;
        }
      }
    }
    this.drawn = drawn;
    this.box.style.height = ((maxDepth + 1) * ROW) + 'px';
    this.box.innerHTML = html.join('');
    this.box.dataset.drawn = drawn;
    this.box.dataset.zoom = this.zoom;
    if (this.onchange) this.onchange();
  }

  zoomTo(i) {
    if (i === this.zoom || !this.m.within(i, this.root)) return;
    this.zoom = i;
    this.render();
  }

  setRoot(i) {
    this.root = this.zoom = i;
    this.render();
  }

  /** search marks the frames whose name matches q; null: none. */
  search(q) {
    const f = matcher(q);
    this.match = null;
    if (f) {
      const m = this.m;
      this.match = new Uint8Array(m.n);
      for (let i = 0; i < m.n; i++) if (f(m.name(i))) this.match[i] = 1;
    }
    this.render();
  }

  /** showFunction marks the frames of the table's row r. */
  showFunction(r) {
    const m = this.m;
    this.match = new Uint8Array(m.n);
    for (let i = 0; i < m.n; i++) if (m.fn[i] === r) this.match[i] = 1;
    this.render();
  }

  /** matched counts the frames marked, and their share of the tree shown. */
  matched() {
    const m = this.m, incl = m.incl[this.metric];
    let frames = 0, value = 0;
    const fns = new Set();
    if (!this.match) return null;
    for (let i = 0; i < m.n; i++) {
      if (!this.match[i]) continue;
      frames++;
      fns.add(m.fn[i] >= 0 ? m.fn[i] : 'f' + i);
      let outer = true;
      for (let a = m.parent[i]; a >= 0; a = m.parent[a]) if (this.match[a]) { outer = false; break; }
      if (outer && m.within(i, this.root)) value += incl[i];
    }
    return {frames, functions: fns.size, value, of: incl[this.root]};
  }

  /** tip is the tooltip's text for frame i. */
  tip(i) {
    const m = this.m, metric = this.metric;
    const unit = metric === 'instructions' ? 'instructions' : 'block executions';
    const total = m.incl[metric][0], rootV = m.incl[metric][this.root];
    const self = m.self[metric][i], incl = m.incl[metric][i];
    const out = [el('div', {class: 'tip-name', text: m.name(i)})];
    const f = m.fn[i];
    if (f >= 0) {
      const r = m.rows[f];
      const where = [m.module(i), fileLine(m.view.table.files[r[3]], r[4])].filter(Boolean).join(' — ');
      if (where) out.push(el('div', {class: 'tip-where', text: where}));
    }
    if (m.isOther(i)) {
      const b = m.view.bound;
      out.push(el('div', {text: group(m.merged[i]) + ' frames, each below ' + group(b.least) + ' instructions, merged into one'}));
    }
    const rows = [];
    const line = (k, v) => rows.push(el('tr', {}, el('th', {text: k}), el('td', {text: v})));
    line('self', group(self) + ' ' + unit + '  (' + share(self, total) + ')');
    line('inclusive', group(incl) + '  (' + share(incl, total) + ' of the run' +
      (this.root !== 0 ? ', ' + share(incl, rootV) + ' of the root' : '') + ')');
    if (m.isFunction(i)) line('calls', group(m.view.tree.calls[i]));
    if (m.diff) {
      for (const mode of ['self', 'incl']) {
        const b = m.base(i, metric, mode), h = m.head(i, metric, mode);
        const name = mode === 'self' ? 'self change' : 'inclusive change';
        line(name, b < 0 ? 'new: not in the base' : group(b) + ' → ' + group(h) + '  (' + signed(h - b) + ', ' + change(b, h) + ')');
      }
    }
    out.push(el('table', {}, rows));
    return out;
  }
}

/** renderFlame builds the flame graph's section of a view and its controls. */
function renderFlame(view, onfunction) {
  const sec = el('section', {class: 'flame', id: 'flame'});
  const m = new FlameModel(view);
  const diff = m.diff;
  sec.append(el('h2', {text: diff ? 'Differential calling-context tree' : 'Calling-context tree'}));
  if (m.n <= 1 || m.incl.instructions[0] === 0) {
    sec.append(el('p', {class: 'note', text: view.run.count_only ?
      'This run was --count-only: it has no calling-context tree. The table has the functions\u2019 self costs.' :
      'The run has no calling-context tree.'}));
    return {sec, flame: null};
  }
  const box = el('div', {class: 'flame-graph', id: 'flame-graph'});
  const crumbs = el('div', {class: 'crumbs', id: 'crumbs'});
  const status = el('span', {class: 'status', id: 'search-status'});
  const flame = new Flame(m, box, () => {
    crumbs.textContent = '';
    const path = [];
    for (let a = flame.zoom; a >= 0; a = m.parent[a]) {
      path.unshift(a);
      if (a === flame.root) break;
    }
    path.forEach((a, k) => {
      if (k) crumbs.append(' › ');
      crumbs.append(a === flame.zoom ? el('b', {text: m.name(a)}) :
        el('a', {href: '#', onclick: e => { e.preventDefault(); flame.zoomTo(a); }, text: m.name(a)}));
    });
    const hit = flame.matched();
    status.textContent = hit ? hit.frames + ' frames match (' + hit.functions + ' functions), ' +
      share(hit.value, hit.of) + ' of the tree shown' : '';
    status.dataset.frames = hit ? hit.frames : '';
  });
  const controls = el('div', {class: 'controls'});
  if (view.roots.length > 1) {
    controls.append(el('label', {}, 'root ', el('select', {id: 'root', onchange: e => flame.setRoot(+e.target.value)},
      view.roots.map(r => el('option', {value: r.node, text: r.label})))));
  }
  controls.append(el('label', {}, 'count ', el('select', {id: 'metric', onchange: e => { flame.metric = e.target.value; flame.render(); }},
    el('option', {value: 'instructions', text: 'instructions'}), el('option', {value: 'blocks', text: 'block executions'}))));
  if (diff) {
    controls.append(el('label', {}, 'colour by ', el('select', {id: 'colour', onchange: e => { flame.mode = e.target.value; flame.render(); }},
      el('option', {value: 'incl', text: 'inclusive change'}), el('option', {value: 'self', text: 'self change'}))));
  }
  const search = el('input', {id: 'search', type: 'search', placeholder: 'search functions (regular expression)', size: 36});
  search.addEventListener('input', debounce(() => flame.search(search.value), 120));
  controls.append(search, el('button', {id: 'reset', type: 'button', onclick: () => flame.zoomTo(flame.root), text: 'reset zoom'}), status);
  sec.append(controls, crumbs, box);
  box.addEventListener('click', e => {
    const f = e.target.closest('.fr');
    if (!f) return;
    const i = +f.dataset.n;
    flame.zoomTo(i);
    if (m.fn[i] >= 0 && onfunction) onfunction(m.fn[i], false);
  });
  const tip = document.getElementById('tip');
  box.addEventListener('mousemove', e => {
    const f = e.target.closest('.fr');
    if (!f) { tip.hidden = true; return; }
    tip.textContent = '';
    tip.append(...flame.tip(+f.dataset.n));
    tip.hidden = false;
    const x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    const y = e.clientY + 16 + tip.offsetHeight > window.innerHeight ? e.clientY - tip.offsetHeight - 8 : e.clientY + 16;
    tip.style.left = Math.max(4, x) + 'px';
    tip.style.top = Math.max(4, y) + 'px';
  });
  box.addEventListener('mouseleave', () => { tip.hidden = true; });
  box.dataset.frames = m.n;
  sec.append(boundNote(view));
  if (diff) sec.append(legend(), vanishedList(view));
  return {sec, flame};
}

/** boundNote says which frames the page merged. */
function boundNote(view) {
  const b = view.bound;
  const total = view.run.instructions;
  if (!b.merged) {
    return el('p', {class: 'note bound', text: 'Every frame of the tree is here (' + group(b.frames) + ' frames); frames narrower than half a pixel are drawn when you zoom in.'});
  }
  return el('p', {class: 'note bound', text: group(b.merged) + ' of the tree\u2019s ' + group(b.frames) +
    ' frames, each below ' + group(b.least) + ' instructions (' + share(b.least, total) + ' of the run; the page keeps frames of at least ' +
    (100 * b.min_share).toPrecision(2) + '% and at most 30,000), are merged into ' + group(b.others) + ' \u201cother\u201d frames, one per parent.'});
}

function legend() {
  return el('p', {class: 'legend'},
    el('span', {class: 'swatch', style: 'background:hsl(2,78%,50%)'}), ' grew ',
    el('span', {class: 'swatch', style: 'background:hsl(214,78%,50%)'}), ' shrank ',
    el('span', {class: 'swatch', style: 'background:#e3e3e3'}), ' unchanged; ',
    'the deeper the colour, the larger the change against the frame\u2019s own count (log scale: 0.01 % faint, 1 % half, new in full); ',
    el('span', {class: 'swatch selfchg'}), ' a dark edge: the frame\u2019s own code changed.');
}

/** vanishedList lists the base's frames that the head's tree lacks. */
function vanishedList(view) {
  const v = view.vanished;
  const sec = el('div', {class: 'vanished', id: 'vanished'});
  if (!v || !v.frames.length) {
    sec.append(el('p', {class: 'note', text: 'No frame of the base vanished.'}));
    return sec;
  }
  sec.append(el('h3', {text: 'Frames that vanished (in the base, not in the head)'}));
  sec.append(el('ul', {}, v.frames.map(f => el('li', {},
    el('span', {class: 'path', text: f.path.join(' › ')}), ' — ', group(f.incl) + ' instructions inclusive, ' + group(f.self) + ' self'))));
  if (v.more) sec.append(el('p', {class: 'note', text: group(v.more) + ' more vanished frames are not listed.'}));
  return sec;
}
