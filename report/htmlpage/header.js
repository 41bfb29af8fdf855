// header.js: what was run, the totals, and for a comparison the verdict
// and the gates.

const verdictWords = {
  regression: 'Regression', none: 'No verdict', changed: 'Changed',
  improved: 'Improved', unchanged: 'Unchanged',
};

/** renderPageHead draws what the page is about: the title, the verdict. */
function renderPageHead(data) {
  const head = el('header', {class: 'top'}, el('h1', {text: data.title}));
  const d = data.diff;
  if (d) {
    head.append(el('div', {class: 'verdict kind-' + d.verdict.kind, id: 'verdict', 'data-kind': d.verdict.kind},
      el('strong', {text: d.verdict.line})));
    head.append(el('dl', {class: 'facts'},
      el('dt', {text: 'base'}), el('dd', {text: d.base}),
      el('dt', {text: 'head'}), el('dd', {text: d.head}),
      el('dt', {text: 'gates'}), el('dd', {id: 'gates'}, d.gates && d.gates.length ?
        el('ul', {}, d.gates.map(g => el('li', {text: g}))) : 'none set'),
      (d.notes || []).length ? [el('dt', {text: 'notes'}), el('dd', {}, el('ul', {}, d.notes.map(n => el('li', {text: n}))))] : null));
  }
  return head;
}

/** runFacts lists what one run was. */
function runFacts(r) {
  const rows = [
    ['command', r.args],
    ['binary', r.binary + (r.sha256 ? '  (sha256 ' + r.sha256.slice(0, 12) + ')' : '')],
    ['arch', r.arch + (r.cpu_model ? ', ' + r.cpu_model : '')],
    ['clock', r.clock],
    ['icount', r.icount + ', Unicorn ' + r.unicorn],
    ['exit', r.exit],
    ['processes', r.processes + (r.threads > 1 ? ', ' + r.threads + ' threads' : '')],
  ];
  if (r.env) rows.push(['environment', r.env + ' variables (--env)']);
  if (r.count_only) rows.push(['mode', '--count-only: self costs only, no call tree']);
  return rows;
}

/** renderRunHead draws a view's header: the run (or both runs) and the totals. */
function renderRunHead(view) {
  const sec = el('section', {class: 'runhead', id: 'runhead'});
  const c = view.comparison;
  if (c) {
    if (view.name) {
      sec.append(el('div', {class: 'verdict small kind-' + c.verdict.kind},
        el('strong', {text: view.name}), ': ', c.verdict.line));
    }
    sec.append(el('p', {class: 'binary', text: c.binary}));
    for (const why of c.incomparable || []) sec.append(el('p', {class: 'warn', text: 'cannot compare: ' + why}));
    for (const f of c.failures || []) sec.append(el('p', {class: 'fail', text: 'gate failed: ' + f}));
  }
  const facts = el('table', {class: 'facts'});
  const head = runFacts(view.run);
  const base = view.base ? runFacts(view.base) : null;
  if (base) facts.append(el('tr', {}, el('th'), el('th', {text: 'base'}), el('th', {text: 'head'})));
  head.forEach((row, i) => {
    const tr = el('tr', {}, el('th', {text: row[0]}));
    if (base) tr.append(el('td', {text: (base[i] && base[i][0] === row[0]) ? base[i][1] : ''}));
    tr.append(el('td', {text: row[1]}));
    facts.append(tr);
  });
  sec.append(facts);
  sec.append(totalsTable(view));
  if (c && c.processes && c.processes.length) sec.append(processTable(c.processes));
  if (c && c.parts) sec.append(stringTable(c.parts, 'parts'));
  if (c && c.parts_unchanged) sec.append(el('p', {class: 'note', text: c.parts_unchanged + (c.parts_unchanged === 1 ? ' part' : ' parts') + ' unchanged.'}));
  if (!c && view.run.parts) sec.append(stringTable(view.run.parts, 'parts'));
  if (c && view.base) sec.append(el('p', {class: 'note', id: 'changed', text: group(c.changed) + ' of ' + group(c.functions) + ' functions changed.'}));
  for (const r of (c && c.renames) || []) {
    sec.append(el('p', {class: 'note', text: 'possible rename: ' + r.from + ' → ' + r.to + ' (same cost: ' + group(r.self) + ' instructions)'}));
  }
  for (const n of (c && c.notes) || []) sec.append(el('p', {class: 'note', text: 'note: ' + n}));
  for (const w of view.run.warnings || []) sec.append(el('p', {class: 'warn', text: 'warning: ' + w}));
  return sec;
}

function totalsTable(view) {
  const c = view.comparison;
  const t = el('table', {class: 'totals', id: 'totals'});
  if (c && c.totals && c.totals.length) {
    t.append(el('tr', {}, el('th'), el('th', {text: 'base'}), el('th', {text: 'head'}), el('th', {text: 'change'}), el('th')));
    for (const r of c.totals) {
      t.append(el('tr', {class: deltaClass(r.head - r.base)}, el('th', {text: r.name}), el('td', {text: group(r.base)}),
        el('td', {text: group(r.head)}), el('td', {text: signed(r.head - r.base)}), el('td', {text: change(r.base, r.head)})));
    }
    return t;
  }
  const r = view.run;
  for (const [name, v] of [['instructions', r.instructions], ['block executions', r.blocks],
    ['distinct blocks', r.distinct_blocks], ['system calls', r.syscalls]]) {
    t.append(el('tr', {}, el('th', {text: name}), el('td', {text: group(v)})));
  }
  return t;
}

function processTable(rows) {
  const t = el('table', {class: 'totals processes'},
    el('tr', {}, el('th', {text: 'process'}), el('th', {text: 'base'}), el('th', {text: 'head'}), el('th', {text: 'change'}), el('th')));
  for (const r of rows) {
    const name = '\u00a0\u00a0'.repeat(r.depth) + r.name + (r.status === 'new' || r.status === 'vanished' ? ' (' + r.status + ')' : '');
    t.append(el('tr', {class: deltaClass(r.head - r.base)}, el('th', {text: name}), el('td', {text: group(r.base)}),
      el('td', {text: group(r.head)}), el('td', {text: signed(r.head - r.base)}), el('td', {text: change(r.base, r.head)})));
  }
  return t;
}

/** stringTable draws rows of text, the first the header, as a totals table. */
function stringTable(rows, id) {
  const t = el('table', {class: 'totals', id: id},
    el('tr', {}, rows[0].map(h => el('th', {text: h}))));
  for (const r of rows.slice(1)) {
    t.append(el('tr', {}, el('th', {text: r[0]}), r.slice(1).map(v => el('td', {text: v}))));
  }
  return t;
}

/** deltaClass names the way a count moved. */
function deltaClass(d) {
  return d > 0 ? 'grow' : d < 0 ? 'shrink' : 'same';
}
