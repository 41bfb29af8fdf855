// table.js: the function table: sortable by any column, filtered by what
// the user types, a row per function; a click on a row shows the
// function's frames and its source lines.

const TABLE_PAGE = 200; // rows drawn at first, and added by "show more"

/** tableColumns are the table's columns for a run or a comparison. */
function tableColumns(view) {
  const t = view.table, total = view.run.instructions;
  const text = (id, label, get) => ({id, label, get, text: true});
  const num = (id, label, get, fmt) => ({id, label, get, fmt: fmt || group});
  const cols = [
    text('name', 'function', r => r[0]),
    text('module', 'module', r => t.modules[r[2]] || ''),
  ];
  if (view.comparison && view.base) {
    const d = (h, b) => r => r[h] - r[b];
    cols.push(text('status', 'status', r => r[12]));
    cols.push(num('base_self', 'base self', r => r[9]), num('self', 'head self', r => r[5]),
      num('d_self', 'Δ self', d(5, 9), signed), {id: 'p_self', label: 'Δ self %', get: d(5, 9), fmt: (v, r) => change(r[9], r[5])});
    if (t.inclusive) {
      cols.push(num('base_incl', 'base incl.', r => r[10]), num('incl', 'head incl.', r => r[6]),
        num('d_incl', 'Δ incl.', d(6, 10), signed),
        num('base_calls', 'base calls', r => r[11]), num('calls', 'head calls', r => r[7]), num('d_calls', 'Δ calls', d(7, 11), signed));
    }
  } else {
    cols.push(num('self', 'self', r => r[5]), num('self_pct', 'self %', r => r[5], v => share(v, total)));
    if (t.inclusive) {
      cols.push(num('incl', 'inclusive', r => r[6]), num('incl_pct', 'incl. %', r => r[6], v => share(v, total)),
        num('calls', 'calls', r => r[7]));
    }
    cols.push(num('blocks', 'blocks', r => r[8]));
  }
  cols.push(text('file', 'file:line', r => fileLine(t.files[r[3]], r[4])));
  return cols;
}

/** renderTable builds the table's section; onselect(row) is called on a click. */
function renderTable(view, onselect) {
  const t = view.table;
  const cols = tableColumns(view);
  const sec = el('section', {class: 'functions', id: 'functions'}, el('h2', {text: 'Functions'}));
  const filter = el('input', {id: 'filter', type: 'search', placeholder: 'filter by name, module or file (regular expression)', size: 44});
  const status = el('span', {class: 'status', id: 'table-status'});
  sec.append(el('div', {class: 'controls'}, filter, status));
  const thead = el('thead', {}, el('tr', {}, cols.map(c => el('th', {'data-col': c.id, class: c.text ? 'text' : 'num', title: 'sort by ' + c.label, text: c.label}))));
  const tbody = el('tbody', {id: 'fn-rows'});
  const table = el('table', {class: 'fn-table', id: 'fn-table'}, thead, tbody);
  const more = el('button', {id: 'more', type: 'button', hidden: true});
  sec.append(el('div', {class: 'table-wrap'}, table), more);
  if (t.left) {
    sec.append(el('p', {class: 'note', text: group(t.left) + ' more functions (' + group(t.left_self) +
      ' instructions of self cost) are not in the table: the page lists at most 20,000, the largest' + (view.base ? ' changes' : '') + ' first.'}));
  }
  const state = {order: t.rows.map((_, i) => i), shown: [], limit: TABLE_PAGE, sort: null, desc: true, selected: -1};
  const draw = () => {
    const rows = state.shown.slice(0, state.limit);
    tbody.innerHTML = rows.map(i => {
      const r = t.rows[i];
      return '<tr data-row="' + i + '"' + (i === state.selected ? ' class="selected"' : '') + '>' + cols.map(c => {
        const v = c.get(r);
        if (c.text) return '<td class="text">' + esc(v) + '</td>';
        const cls = c.fmt === signed ? ' ' + deltaClass(v) : '';
        return '<td class="num' + cls + '" data-v="' + v + '">' + esc(c.fmt(v, r)) + '</td>';
      }).join('') + '</tr>';
    }).join('');
    const left = state.shown.length - rows.length;
    more.hidden = left <= 0;
    more.textContent = 'show ' + group(Math.min(left, 5 * TABLE_PAGE)) + ' more of ' + group(left);
    status.textContent = group(state.shown.length) + ' of ' + group(t.rows.length) + ' functions';
  };
  const refilter = () => {
    const f = matcher(filter.value);
    state.shown = state.order.filter(i => {
      if (!f) return true;
      const r = t.rows[i];
      return f(r[0]) || (r[1] && f(r[1])) || f(t.modules[r[2]] || '') || f(t.files[r[3]] || '');
    });
    state.limit = TABLE_PAGE;
    draw();
  };
  thead.addEventListener('click', e => {
    const th = e.target.closest('th');
    if (!th) return;
    const c = cols.find(c => c.id === th.dataset.col);
    state.desc = state.sort === c.id ? !state.desc : !c.text;
    state.sort = c.id;
    const key = t.rows.map(r => c.get(r));
    const dir = state.desc ? -1 : 1;
    state.order.sort((a, b) => {
      const x = key[a], y = key[b];
      const o = c.text ? String(x).localeCompare(String(y)) : x - y;
      return dir * o || a - b;
    });
    for (const h of thead.querySelectorAll('th')) h.removeAttribute('data-sort');
    th.dataset.sort = state.desc ? 'desc' : 'asc';
    refilter();
  });
  filter.addEventListener('input', debounce(refilter, 120));
  more.addEventListener('click', () => { state.limit += 5 * TABLE_PAGE; draw(); });
  tbody.addEventListener('click', e => {
    const tr = e.target.closest('tr');
    if (tr) onselect(+tr.dataset.row, true);
  });
  refilter();
  return {
    sec,
    /** select marks row i as the one shown, drawing it if the table hides it. */
    select(i) {
      state.selected = i;
      const at = state.shown.indexOf(i);
      if (at >= state.limit) state.limit = at + 1;
      draw();
    },
  };
}
