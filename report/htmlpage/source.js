// source.js: a function's source lines with their counts, from a run
// saved with --lines, the text embedded when the sources were readable
// when the page was written.

/** renderSource fills box with row r's source lines. */
function renderSource(view, r, box) {
  const t = view.table;
  const row = t.rows[r];
  box.textContent = '';
  box.append(el('h2', {text: 'Source of ' + row[0]}));
  const lines = t.lines && t.lines[r];
  if (!lines) {
    box.append(el('p', {class: 'note', text: view.run.lines ?
      'No line information for this function (no DWARF line table covers it).' :
      'No per-line counts: save the run with icount run --lines --json to have them here.'}));
    return;
  }
  const diff = !!view.base;
  const byFile = new Map();
  for (const l of lines) {
    if (!byFile.has(l[0])) byFile.set(l[0], []);
    byFile.get(l[0]).push(l);
  }
  for (const [file, ls] of byFile) {
    const sum = ls.reduce((s, l) => s + l[2], 0);
    const name = t.files[file] || '(no line information)';
    box.append(el('h3', {text: name + ' — ' + group(sum) + ' instructions'}));
    const src = (t.sources && t.sources[file]) || null;
    if (src && src.error) box.append(el('p', {class: 'note', text: src.error}));
    const counts = new Map(ls.map(l => [l[1], l]));
    const tb = el('tbody');
    const head = el('tr', {}, diff ? [el('th', {text: 'base'}), el('th', {text: 'head'}), el('th', {text: 'Δ'})] : el('th', {text: 'count'}),
      el('th', {text: 'line'}), el('th', {class: 'text', text: 'source'}));
    let numbers = [...counts.keys()];
    if (src && src.lines) numbers = [...new Set([...numbers, ...Object.keys(src.lines).map(Number)])];
    numbers.sort((a, b) => a - b);
    let prev = -1;
    for (const n of numbers) {
      if (prev >= 0 && n > prev + 1) tb.append(el('tr', {class: 'gap'}, el('td', {colspan: diff ? 5 : 3, text: '⋯'})));
      prev = n;
      const l = counts.get(n);
      const text = src && src.lines ? (src.lines[n] !== undefined ? src.lines[n] : '') : '';
      const cells = diff ? [el('td', {class: 'num', text: l && l[3] >= 0 ? group(l[3]) : ''}), el('td', {class: 'num', text: l ? group(l[2]) : ''}),
        el('td', {class: 'num ' + (l ? deltaClass(l[2] - Math.max(0, l[3])) : ''), text: l ? signed(l[2] - Math.max(0, l[3])) : ''})] :
        el('td', {class: 'num', text: l ? group(l[2]) : ''});
      tb.append(el('tr', {class: l ? 'counted' : ''}, cells, el('td', {class: 'num lineno', text: n || '—'}),
        el('td', {class: 'code'}, text, l && l[4] ? el('span', {class: 'inl', text: '  (inlined ' + l[4] + ')'}) : null)));
    }
    box.append(el('table', {class: 'source'}, el('thead', {}, head), tb));
  }
}
