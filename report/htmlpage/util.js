// util.js: formatting and small DOM helpers shared by the page's parts.

/** group writes n with thousands separators: 1,234,567. */
function group(n) {
  if (n === null || n === undefined || n < 0) return '';
  return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** signed writes a change with its sign: +1,234, -5, 0. */
function signed(n) {
  if (n > 0) return '+' + group(n);
  if (n < 0) return '-' + group(-n);
  return '0';
}

/** share writes part of whole as a percentage. */
function share(part, whole) {
  if (!whole) return '';
  const p = 100 * part / whole;
  if (p > 0 && p < 0.01) return '<0.01%';
  return p.toFixed(p < 10 ? 2 : 1) + '%';
}

/** change writes head against base as a relative change: +1.25%, new. */
function change(base, head) {
  if (base === head) return '0%';
  if (!base) return 'new';
  const p = 100 * (head - base) / base;
  const a = Math.abs(p);
  const s = p < 0 ? '-' : '+';
  if (a < 0.005) return s + '<0.01%';
  return s + (a >= 1000 ? a.toFixed(0) : a.toFixed(2)) + '%';
}

/** el makes an element with attributes and children (strings become text). */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** esc escapes text for HTML built as a string. */
function esc(s) {
  return String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
}

/** escapeRegExp makes s match itself in a regular expression. */
function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * matcher turns what the user typed into a test of a string: a regular
 * expression, case-insensitive, or the text itself when it is not one.
 */
function matcher(q) {
  if (!q) return null;
  let re;
  try {
    re = new RegExp(q, 'i');
  } catch (e) {
    re = new RegExp(escapeRegExp(q), 'i');
  }
  return s => re.test(s);
}

/** hashString is a small stable hash, for colours. */
function hashString(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** fileLine writes a function's source position. */
function fileLine(file, line) {
  if (!file) return '';
  return line ? file + ':' + line : file;
}

/** debounce calls f once calls to the result pause for ms. */
function debounce(f, ms) {
  let t = 0;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => f(...a), ms);
  };
}
