// main.js: reads the page's data and draws it; one view at a time (a
// comparison of suites has one per benchmark).

let shown = null; // the flame graph of the view shown, redrawn when the window's width changes

function showView(data, i, box) {
  const view = data.views[i];
  box.textContent = '';
  box.append(renderRunHead(view));
  const source = el('section', {class: 'source-box', id: 'source', hidden: true});
  let table = null;
  const select = (r, fromTable) => {
    if (table) table.select(r);
    if (fromTable && fl.flame) fl.flame.showFunction(r);
    renderSource(view, r, source);
    source.hidden = false;
  };
  const fl = renderFlame(view, select);
  table = renderTable(view, select);
  box.append(fl.sec, table.sec, source, renderCharts(view));
  shown = fl.flame;
  if (shown) shown.render();
}

function main() {
  const data = JSON.parse(document.getElementById('icount-data').textContent);
  const app = document.getElementById('app');
  app.textContent = '';
  document.title = data.title;
  app.append(renderPageHead(data));
  const box = el('div', {id: 'view'});
  if (data.views.length > 1) {
    app.append(el('label', {class: 'picker'}, 'benchmark ', el('select', {id: 'view-picker', onchange: e => showView(data, +e.target.value, box)},
      data.views.map((v, i) => el('option', {value: i, text: v.name + (v.comparison ? ' — ' + (verdictWords[v.comparison.verdict.kind] || '') : '')})))));
  }
  app.append(box);
  showView(data, 0, box);
  window.addEventListener('resize', debounce(() => { if (shown) shown.render(); }, 150));
  app.append(el('footer', {}, 'Written by icount. Counts are exact; everything on this page is in this one file.'));
  // Ready once drawn: after the first frame is painted.
  requestAnimationFrame(() => setTimeout(() => {
    document.documentElement.dataset.loadMs = performance.now().toFixed(0);
    document.documentElement.dataset.ready = 'true';
  }, 0));
}

main();
