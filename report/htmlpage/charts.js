// charts.js: the instruction mix and the instructions by object, as bars.

/** bars draws one bar per item, each side's share of its total. */
function bars(id, title, note, items, diff) {
  const box = el('div', {class: 'chart', id});
  box.append(el('h3', {text: title}));
  if (note) box.append(el('p', {class: 'note', text: note}));
  const t = el('table', {class: 'bars'});
  for (const it of items) {
    const bar = (v, total, cls) => el('div', {class: 'bar ' + cls, style: 'width:' + (total ? (100 * v / total).toFixed(2) : 0) + '%'});
    const cell = el('td', {class: 'barcell'}, diff ? bar(it.base, it.baseTotal, 'base') : null, bar(it.head, it.headTotal, 'head'));
    const nums = diff ? group(it.base) + ' → ' + group(it.head) + ' (' + change(it.base, it.head) + ')' :
      group(it.head) + ' (' + share(it.head, it.headTotal) + ')';
    t.append(el('tr', {}, el('th', {text: it.name, title: it.title || it.name}), cell, el('td', {class: 'num', text: nums})));
  }
  box.append(t);
  if (diff) box.append(el('p', {class: 'legend'}, el('span', {class: 'swatch base'}), ' base ', el('span', {class: 'swatch head'}), ' head'));
  return box;
}

/** renderCharts builds the mix and per-object charts of a view. */
function renderCharts(view) {
  const sec = el('section', {class: 'charts', id: 'charts'}, el('h2', {text: 'Instruction mix and objects'}));
  const diff = !!view.base;
  const mix = view.mix;
  if (mix) {
    sec.append(bars('mix', 'Instruction mix', 'The kinds overlap (a load into a SIMD register is both): each is a share of all instructions.',
      mix.kinds.map((k, i) => ({name: k, head: mix.head[i], headTotal: mix.head_total,
        base: mix.base ? mix.base[i] : 0, baseTotal: mix.base_total || 0})), diff && !!mix.base));
  } else {
    sec.append(el('p', {class: 'note', text: 'No instruction mix in this Profile.'}));
  }
  const objs = view.objects || [];
  if (objs.length) {
    const ht = objs.reduce((s, o) => s + o.head, 0), bt = objs.reduce((s, o) => s + o.base, 0);
    sec.append(bars('objects', 'Instructions by object', 'Each object\u2019s share of the instructions: the program, its libraries, the dynamic linker, code it wrote.',
      objs.map(o => ({name: o.module, title: o.file, head: o.head, headTotal: ht, base: o.base, baseTotal: bt})), diff));
  }
  return sec;
}
