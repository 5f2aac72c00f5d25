// The interactive HTML view of attention weights (include/attn/html_view.hpp). The weights
// go into the page as base64 8-bit opacity codes (and exact float32 values when small); a
// script draws the head, matrix and model views from them on canvases.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "attn/error.hpp"
#include "attn/html_view.hpp"
#include "draw/max_pool.hpp"
#include "draw/text_util.hpp"

namespace attn::viz {

namespace {

using detail::max_pool;
using detail::plan_pooling;
using detail::Pooling;

// A page holds every weight as text: beyond this a browser struggles with the lines, so the
// heads are max-pooled to fit.
constexpr std::size_t max_weights = std::size_t(1) << 22;
// Queries or keys beyond this are pooled too: a head view of n tokens is 2n pixels tall and the
// matrix view's image n wide, and browsers leave a canvas blank past 32767 (Firefox) or 65535
// (Chromium) pixels a side.
constexpr std::size_t max_page_side = 8192;
// Exact float32 values (4 bytes a weight) join the 8-bit codes only up to here: 8 MB pages.
constexpr std::size_t max_exact = std::size_t(1) << 20;

// A JSON string that is also safe inside <script>: '<' is escaped so "</script>" cannot
// close the element.
std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : detail::printable(s)) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '<': out += "\\u003c"; break;
            case '>': out += "\\u003e"; break;
            case '&': out += "\\u0026"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

// Shortest text that reads back as the same float; NaN (a fully masked row under
// --masked-rows nan) is null.
std::string json_number(float v) {
    if (!std::isfinite(v)) return "null";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::string labels_json(const std::vector<std::string>& labels, std::size_t n) {
    std::string out = "[";
    for (std::size_t i = 0; i < n; ++i)
        out += (i ? "," : "") + json_string(labels.size() == n ? labels[i] : std::to_string(i));
    return out + "]";
}


std::string html_text(const std::string& s) { return xml_escape(s); }

// RFC 4648 base64: 4 characters per 3 bytes, the compact form of the bytes in a page.
std::string base64(const std::vector<unsigned char>& b) {
    static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((b.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < b.size(); i += 3) {
        const unsigned v = unsigned(b[i]) << 16 | (i + 1 < b.size() ? unsigned(b[i + 1]) << 8 : 0u) |
                           (i + 2 < b.size() ? unsigned(b[i + 2]) : 0u);
        out += digits[v >> 18 & 63];
        out += digits[v >> 12 & 63];
        out += i + 1 < b.size() ? digits[v >> 6 & 63] : '=';
        out += i + 2 < b.size() ? digits[v & 63] : '=';
    }
    return out;
}

constexpr const char* style = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; }
#info { color: #555; margin: 0 0 10px; }
#controls { margin-bottom: 8px; display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; }
#heads { display: inline-flex; flex-wrap: wrap; gap: 3px; }
.head-toggle { display: inline-block; min-width: 20px; padding: 1px 4px; text-align: center; color: #fff; border: 0;
  border-radius: 3px; cursor: pointer; font: 12px ui-monospace, monospace; user-select: none; opacity: 0.25; }
.head-toggle.on { opacity: 1; }
.head-toggle:focus-visible, #headview:focus-visible { outline: 2px solid #c0392b; outline-offset: 1px; }
#tabs button { font: inherit; padding: 3px 12px; margin-right: 4px; border: 1px solid #aaa; background: #f4f4f4;
  border-radius: 3px; cursor: pointer; }
#tabs button.on { background: #1f6fb4; color: #fff; border-color: #1f6fb4; }
#tabs { margin-bottom: 10px; }
#views { display: flex; gap: 32px; align-items: flex-start; flex-wrap: wrap; }
.panel h2 { font-size: 14px; margin: 0 0 4px; color: #444; font-weight: 600; white-space: nowrap; }
#colorbar { display: flex; align-items: center; gap: 6px; margin-top: 6px; font: 12px ui-monospace, monospace; }
#model { display: grid; gap: 4px; align-items: center; justify-content: start; }
#model .thumb { width: 64px; height: 64px; image-rendering: pixelated; cursor: pointer; border: 1px solid #ddd; }
#model .thumb:hover { border-color: #c0392b; }
#model .axis { font: 12px ui-monospace, monospace; color: #555; white-space: nowrap; }
/* The readout floats over the page in the half of the window away from the pointer, and never
   takes the pointer: it grows with the heads shown, and at the window's foot it covered the
   lines being inspected (and hovering under it cancelled the hover). */
body { padding-bottom: 3em; }
#readout { font: 13px ui-monospace, monospace; min-height: 1.4em; margin: 0; color: #333; background: #fff;
  position: fixed; left: 0; right: 0; bottom: 0; padding: 4px 24px; max-height: 40vh; overflow: hidden;
  pointer-events: none; border-top: 1px solid #ddd; }
#readout.top { top: 0; bottom: auto; border-top: 0; border-bottom: 1px solid #ddd; }
#selftest { display: none; }
@media (prefers-color-scheme: dark) {
  body { color: #ddd; background: #181818; }
  #info, #model .axis { color: #aaa; }
  .panel h2, #readout { color: #ccc; }
  #readout { background: #181818; border-color: #444; }
  #tabs button { background: #2a2a2a; color: #ddd; border-color: #555; }
  #model .thumb { border-color: #444; }
}
[hidden] { display: none !important; }
)css";

// The page's script: decodes the 8-bit weights once, then draws the head view (lines on a
// canvas, grouped by opacity so 100k lines are a few hundred strokes), the matrix view and,
// when first opened, the model view.
constexpr const char* script = R"js(
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('attn-data').textContent);
  const tq = D.q.length, tk = D.k.length, cells = tq * tk;
  function bytes(b64) { const s = atob(b64), a = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i); return a; }
  const C = bytes(D.codes), MB = D.mask === null ? null : bytes(D.mask);
  const E = D.exact === null ? null : new Float32Array(bytes(D.exact).buffer);
  // Each leading dimension's extent, and the index each position stands for (head 1 when it is
  // the one head shown): what the page calls a head, batch item or layer.
  const dim = {}, at = {}; D.lead.forEach(p => { dim[p[0]] = p[1]; at[p[0]] = p[2]; });
  const real = (name, i) => at[name] ? at[name][i] : i;
  const L = dim.layer || 1, B = dim.batch || 1, H = dim.head || 1;
  const slice = (l, b, h) => (l * B + b) * H + h;
  const masked = i => MB !== null && ((MB[i >> 3] >> (i & 7)) & 1) === 1;
  const value = i => E !== null ? E[i] : C[i] / 255 * D.scale;
  const fmt = i => masked(i) ? 'masked' : E !== null ? E[i].toPrecision(4) : '\u2248' + value(i).toPrecision(3);
  // Head colours: 15 category colours, then hues a golden angle (137.5 degrees) apart at four
  // lightnesses in turn, so that no two heads share a colour however many there are (a palette
  // of 16 repeated from head 16 on, and its 16th, #3182bd, was close to head 0's blue). Four,
  // not three: hues 21 heads apart differ by only 7.7 degrees, and 21 is a multiple of 3.
  const palette = ['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2','#7f7f7f','#bcbd22','#17becf','#393b79','#ad494a','#637939','#8c6d31','#7b4173'];
  const colour = h => h < palette.length ? palette[h] :
    'hsl(' + (((h - palette.length) * 137.508 + 30) % 360).toFixed(2) + ',70%,' + [42, 62, 30, 52][(h - palette.length) % 4] + '%)';
  const stops = [[68,1,84],[72,36,117],[59,82,139],[44,114,142],[33,145,140],[39,173,129],[94,201,98],[173,220,48],[253,231,37]];
  const lut = [];
  for (let c = 0; c < 256; c++) {
    const t = c / 255 * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(t)), f = t - i;
    lut.push(stops[i].map((v, k) => Math.round(v + f * (stops[i + 1][k] - v))));
  }
  let maxCode = 1;
  for (let i = 0; i < C.length; i++) if (C[i] > maxCode && !masked(i)) maxCode = C[i];
  const $ = id => document.getElementById(id);
  const readout = $('readout'), idle = readout.textContent;  // idle: what it says while nothing is hovered
  // Canvases hold devicePixelRatio pixels per CSS pixel (sharp on high-density screens), as far
  // as a browser draws them (Chromium: 65535 pixels a side, 2^28 in all; Firefox 32767 a side:
  // a larger one stays blank, which the page's 8192 tokens a side keep it from at ratio 1); the
  // drawing code works in CSS pixels. Resizing a canvas resets its context's state.
  const dpr = window.devicePixelRatio || 1;
  function size(c, w, h) {
    c.k = Math.min(dpr, 32767 / Math.max(w, h, 1), Math.sqrt(268435456 / Math.max(w * h, 1)));
    c.width = Math.round(w * c.k); c.height = Math.round(h * c.k); c.style.width = w + 'px'; c.style.height = h + 'px';
  }
  const ink = getComputedStyle(document.body).color;  // the text colour (light or dark scheme)

  // ---- state ----
  const S = {layer: 0, batch: 0, on: new Array(H).fill(true), cur: 0, thr: 1, pair: 'all', focus: null};
  // The first frame draws at most maxLines lines: the threshold starts at the smallest code
  // that keeps the first layer's lines under it (the slider lowers it).
  const maxLines = 30000;
  (function firstThreshold() {
    const hist = new Array(256).fill(0), end = slice(0, 0, H - 1) * cells + cells;
    for (let i = 0; i < end; i++) if (!masked(i)) hist[C[i]]++;
    let above = 0, t = 256;
    while (t > 1 && above + hist[t - 1] <= maxLines) above += hist[--t];
    S.thr = Math.max(1, t);
  })();
  let rec = null;  // the selftest's record of drawn lines: [slice, q, k, opacity]
  const inSet = (which, i) => S.pair === 'all' || ((i >= D.sentB) === (which === 'B'));
  const qIn = q => inSet(S.pair[0], q), kIn = k => inSet(S.pair[S.pair === 'all' ? 0 : 1], k);

  // ---- controls ----
  function fillSelect(id, n, name) {
    const sel = $(id);
    for (let i = 0; i < n; i++) { const o = document.createElement('option'); o.value = i; o.textContent = name + ' ' + real(name, i); sel.appendChild(o); }
    if (n < 2) $(id + '-box').hidden = true;
    return sel;
  }
  const layerSel = fillSelect('layer', L, 'layer'), batchSel = fillSelect('batch', B, 'batch');
  layerSel.addEventListener('change', () => { S.layer = +layerSel.value; drawAll(); });
  batchSel.addEventListener('change', () => { S.batch = +batchSel.value; modelDirty = true; drawAll(); });
  const pairSel = $('pair');
  if (!(D.sentB > 0)) $('pair-box').hidden = true;
  pairSel.addEventListener('change', () => { S.pair = pairSel.value; drawHead(); });
  const thrIn = $('threshold');
  thrIn.value = S.thr;
  function thrText() { $('thr-text').textContent = (S.thr / 255 * D.scale).toFixed(3); }
  thrIn.addEventListener('input', () => { S.thr = +thrIn.value; thrText(); drawHead(); });
  thrText();
  const toggles = [];
  for (let h = 0; h < H; h++) {
    // A button: Tab reaches it, Enter and Space click it; O (as a double-click) shows it alone.
    const t = document.createElement('button');
    t.type = 'button'; t.className = 'head-toggle on'; t.dataset.h = h; t.textContent = real('head', h); t.style.background = colour(h);
    t.title = 'head ' + real('head', h) + ': click (Enter, Space) to show or hide, double-click (O) for this head alone';
    t.addEventListener('click', () => {
      if (S.on[h] && S.on.filter(x => x).length === 1) return;  // the last head shown stays (as bertviz)
      S.on[h] = !S.on[h]; if (S.on[h]) S.cur = h; syncToggles(); drawAll();
    });
    const alone = () => { S.on.fill(false); S.on[h] = true; S.cur = h; syncToggles(); drawAll(); };
    t.addEventListener('dblclick', alone);
    t.addEventListener('keydown', e => { if (e.key === 'o' || e.key === 'O') { e.preventDefault(); alone(); } });
    $('heads').appendChild(t); toggles.push(t);
  }
  if (H < 2) { $('heads-box').hidden = true; $('head-title').textContent = 'head view (hover a token)'; }
  function syncToggles() {
    toggles.forEach((t, h) => { t.classList.toggle('on', S.on[h]); t.setAttribute('aria-pressed', S.on[h]); });
    if (!S.on[S.cur]) { const f = S.on.indexOf(true); if (f >= 0) S.cur = f; }
  }

  // ---- head view ----
  const hv = $('headview'), hx = hv.getContext('2d');
  const font = '13px system-ui, sans-serif';
  hx.font = font;
  let longest = hx.measureText('queries').width;
  D.q.concat(D.k).forEach(s => { longest = Math.max(longest, hx.measureText(s).width); });
  const labelW = Math.ceil(Math.min(200, longest) + 14), gap = 160, top = 26;
  const n = Math.max(tq, tk);
  const rowH = n <= 64 ? 20 : Math.max(2, Math.min(20, Math.floor(2400 / n)));
  const labelEvery = Math.ceil(10 / rowH);  // rows too thin for every label: every k-th, and the hovered one
  const hvW = 2 * labelW + gap, hvH = top + n * rowH + 8;
  size(hv, hvW, hvH);
  // A label cut to width w with an ellipsis: the longest prefix that fits, by bisection, once per
  // label, font and width (cut a character at a time, on every redraw, a label of 20,000
  // characters took 40 s to draw the page).
  const clipped = new Map();
  function clip(ctx, s, w) {
    const key = ctx.font + '\u0000' + w + '\u0000' + s;
    let c = clipped.get(key);
    if (c !== undefined) return c;
    if (ctx.measureText(s).width <= w) {
      c = s;
    } else {
      let lo = 1, hi = s.length;
      while (lo < hi) {
        const m = (lo + hi + 1) >> 1;
        if (ctx.measureText(s.slice(0, m) + '\u2026').width <= w) lo = m; else hi = m - 1;
      }
      const code = s.charCodeAt(lo - 1);
      if (lo > 1 && code >= 0xd800 && code < 0xdc00) --lo;  // not half of a surrogate pair
      c = s.slice(0, lo) + '\u2026';
    }
    clipped.set(key, c);
    return c;
  }
  const yOf = i => top + i * rowH + rowH / 2;
  function drawHead() {
    hx.setTransform(hv.k, 0, 0, hv.k, 0, 0);
    hx.globalAlpha = 1; hx.clearRect(0, 0, hvW, hvH);
    hx.font = 'bold ' + font; hx.fillStyle = ink;
    hx.textAlign = 'right'; hx.fillText('queries', labelW - 6, 16);
    hx.textAlign = 'left'; hx.fillText('keys', labelW + gap + 6, 16);
    hx.font = font;
    {
      const f = S.focus;
      D.q.forEach((s, q) => {
        const on = f !== null && f.side === 'q' && f.idx === q;
        if (q % labelEvery !== 0 && !on) return;
        hx.fillStyle = on ? '#c0392b' : qIn(q) ? ink : '#999'; hx.textAlign = 'right';
        hx.fillText(clip(hx, s, labelW - 10), labelW - 6, yOf(q) + 4);
      });
      D.k.forEach((s, k) => {
        const on = f !== null && f.side === 'k' && f.idx === k;
        if (k % labelEvery !== 0 && !on) return;
        hx.fillStyle = on ? '#c0392b' : kIn(k) ? ink : '#999'; hx.textAlign = 'left';
        hx.fillText(clip(hx, s, labelW - 10), labelW + gap + 6, yOf(k) + 4);
      });
    }
    const x1 = labelW, x2 = labelW + gap, f = S.focus;
    const q0 = f !== null && f.side === 'q' ? f.idx : 0, q1 = f !== null && f.side === 'q' ? f.idx + 1 : tq;
    const k0 = f !== null && f.side === 'k' ? f.idx : 0, k1 = f !== null && f.side === 'k' ? f.idx + 1 : tk;
    hx.lineWidth = n <= 64 ? 2 : 1;  // 1 px lines are Skia's fast hairlines
    for (let h = 0; h < H; h++) {
      if (!S.on[h]) continue;
      const s = slice(S.layer, S.batch, h), base = s * cells;
      const paths = new Array(256), pairs = rec !== null ? new Array(256) : null;
      for (let q = q0; q < q1; q++) {
        if (!qIn(q)) continue;
        const row = base + q * tk, y1 = yOf(q);
        for (let k = k0; k < k1; k++) {
          const i = row + k, c = C[i];
          if (c < S.thr || !kIn(k) || masked(i)) continue;
          let p = paths[c];
          if (p === undefined) { p = paths[c] = new Path2D(); if (pairs) pairs[c] = []; }
          p.moveTo(x1, y1); p.lineTo(x2, yOf(k));
          if (pairs) pairs[c].push(q, k);
        }
      }
      hx.strokeStyle = colour(h);
      for (let c = 0; c < 256; c++) {
        if (paths[c] === undefined) continue;
        hx.globalAlpha = c / 255;
        hx.stroke(paths[c]);
        if (pairs) for (let j = 0; j < pairs[c].length; j += 2) rec.push([s, pairs[c][j], pairs[c][j + 1], hx.globalAlpha]);
      }
    }
    hx.globalAlpha = 1;
  }
  // A token with its position: "the (3)" (a text may hold a token more than once), isolated
  // (FSI ... PDI) so that a right-to-left token does not reorder the numbers around it.
  const token = (names, j) => '\u2068' + names[j] + '\u2069 (' + j + ')';
  // The readout goes to the half of the window the pointer (or the focused row) is not in.
  const place = y => readout.classList.toggle('top', y > window.innerHeight / 2);
  function focusText() {
    const f = S.focus;
    if (f === null) { readout.textContent = idle; return; }
    const names = f.side === 'q' ? D.k : D.q, shown = f.side === 'q' ? kIn : qIn, parts = [];
    for (let h = 0; h < H; h++) {
      if (!S.on[h]) continue;
      const base = slice(S.layer, S.batch, h) * cells, best = [];
      for (let j = 0; j < names.length; j++) {
        const i = base + (f.side === 'q' ? f.idx * tk + j : j * tk + f.idx);
        if (!masked(i) && shown(j)) best.push([value(i), j, i]);
      }
      best.sort((a, b) => b[0] - a[0]);
      parts.push((dim.head === undefined ? '' : 'head ' + real('head', h) + ': ') +
                 best.slice(0, 3).map(e => token(names, e[1]) + ' ' + fmt(e[2])).join(', '));
    }
    readout.textContent = (f.side === 'q' ? 'query ' + token(D.q, f.idx) + ' attends to ' : 'key ' + token(D.k, f.idx) + ' is attended by ') + parts.join(' | ');
  }
  function setFocus(f) {
    const same = (f === null && S.focus === null) || (f !== null && S.focus !== null && f.side === S.focus.side && f.idx === S.focus.idx);
    if (same) return;
    S.focus = f; drawHead(); focusText();
  }
  hv.addEventListener('mousemove', e => {
    const r = hv.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    const row = Math.floor((y - top) / rowH), side = x < labelW ? 'q' : x > labelW + gap ? 'k' : null;
    place(e.clientY);
    setFocus(side !== null && row >= 0 && row < (side === 'q' ? tq : tk) ? {side: side, idx: row} : null);
  });
  hv.addEventListener('mouseleave', () => setFocus(null));
  // Keys, once the head view has the focus (Tab): up and down move along the tokens, left and
  // right go to the queries or the keys, Escape lets go.
  hv.tabIndex = 0;
  hv.setAttribute('aria-label', 'head view: arrow keys move between tokens');
  hv.addEventListener('keydown', e => {
    const f = S.focus === null ? {side: 'q', idx: -1} : S.focus, moves = {ArrowUp: -1, ArrowDown: 1};
    let side = f.side, idx = f.idx;
    if (e.key in moves) idx += moves[e.key];
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') side = e.key === 'ArrowLeft' ? 'q' : 'k';
    else if (e.key === 'Escape') { setFocus(null); return; }
    else return;
    e.preventDefault();
    idx = Math.max(0, Math.min((side === 'q' ? tq : tk) - 1, idx));
    place(hv.getBoundingClientRect().top + yOf(idx));
    setFocus({side: side, idx: idx});
  });
  hv.addEventListener('blur', () => setFocus(null));

  // ---- matrix view: one colour scale (0 … the largest weight of the page) ----
  const mv = $('matrix'), mx = mv.getContext('2d');
  const cell = Math.max(1, Math.min(24, Math.floor(440 / n)));
  const matLabels = cell >= 10;
  mx.font = font;
  const mLeft = matLabels ? labelW : Math.ceil(mx.measureText('query').width + 12), mTop = matLabels ? labelW : 22;
  const mvW = mLeft + tk * cell + 8, mvH = mTop + tq * cell + 8;
  size(mv, mvW, mvH);
  const img = document.createElement('canvas'); img.width = tk; img.height = tq;
  const ix = img.getContext('2d'), id = ix.createImageData(tk, tq);
  function pixel(data, o, code) {  // code -1: masked
    if (code < 0) { data[o] = data[o + 1] = data[o + 2] = 204; }
    else { const c = lut[Math.min(255, Math.round(code / maxCode * 255))]; data[o] = c[0]; data[o + 1] = c[1]; data[o + 2] = c[2]; }
    data[o + 3] = 255;
  }
  function paint(s, data) {  // one slice into RGBA pixels, one per cell
    const base = s * cells;
    for (let i = 0; i < cells; i++) pixel(data, 4 * i, masked(base + i) ? -1 : C[base + i]);
    return cells;
  }
  // A thumbnail holds at most 64x64 pixels: a larger head is max-pooled into blocks (each the
  // largest weight it holds, masked when it holds none, as the SVG and terminal pictures pool),
  // so an isolated peak stays (the browser's scaling of the whole image dropped it).
  const thumb = 64, blockQ = Math.ceil(tq / thumb), blockK = Math.ceil(tk / thumb);
  const thumbQ = Math.ceil(tq / blockQ), thumbK = Math.ceil(tk / blockK);
  function paintPooled(s, data) {
    const best = new Int16Array(thumbQ * thumbK).fill(-1), base = s * cells;
    for (let q = 0; q < tq; q++) {
      const row = Math.floor(q / blockQ) * thumbK;
      for (let k = 0; k < tk; k++) {
        const g = base + q * tk + k, b = row + Math.floor(k / blockK);
        if (!masked(g) && C[g] > best[b]) best[b] = C[g];
      }
    }
    for (let b = 0; b < best.length; b++) pixel(data, 4 * b, best[b]);
  }
  let cellsDrawn = 0;
  function drawMatrix() {
    const s = slice(S.layer, S.batch, S.cur);
    $('matrix-title').textContent = 'matrix view: ' + D.names[s] + ' (rows: queries, columns: keys)';
    cellsDrawn = paint(s, id.data);
    ix.putImageData(id, 0, 0);
    mx.setTransform(mv.k, 0, 0, mv.k, 0, 0);
    mx.clearRect(0, 0, mvW, mvH);
    mx.imageSmoothingEnabled = false;
    mx.drawImage(img, mLeft, mTop, tk * cell, tq * cell);
    mx.fillStyle = ink; mx.font = font;
    if (matLabels) {
      mx.textAlign = 'right';
      D.q.forEach((t, q) => mx.fillText(clip(mx, t, labelW - 10), mLeft - 4, mTop + q * cell + cell / 2 + 4));
      mx.textAlign = 'left';
      D.k.forEach((t, k) => {
        mx.save(); mx.translate(mLeft + k * cell + cell / 2 + 4, mTop - 4); mx.rotate(-Math.PI / 2);
        mx.fillText(clip(mx, t, labelW - 10), 0, 0); mx.restore();
      });
    } else {
      mx.textAlign = 'left'; mx.fillText('keys \u2192', mLeft, 16);
      mx.save(); mx.translate(14, mTop); mx.rotate(Math.PI / 2); mx.fillText('queries \u2192', 0, 0); mx.restore();
    }
  }
  mv.addEventListener('mouseleave', () => { readout.textContent = idle; });
  mv.addEventListener('mousemove', e => {
    const r = mv.getBoundingClientRect(), k = Math.floor((e.clientX - r.left - mLeft) / cell), q = Math.floor((e.clientY - r.top - mTop) / cell);
    place(e.clientY);
    if (q < 0 || q >= tq || k < 0 || k >= tk) { readout.textContent = idle; return; }  // labels and margins: no cell
    const s = slice(S.layer, S.batch, S.cur);
    readout.textContent = D.names[s] + ': query ' + token(D.q, q) + ' \u2192 key ' + token(D.k, k) + ': ' + fmt(s * cells + q * tk + k);
  });
  (function colourBar() {
    const bar = $('bar'), bx = bar.getContext('2d');
    for (let x = 0; x < bar.width; x++) { const c = lut[Math.round(x / (bar.width - 1) * 255)]; bx.fillStyle = 'rgb(' + c.join(',') + ')'; bx.fillRect(x, 0, 1, bar.height); }
    let hi = maxCode / 255 * D.scale;
    if (E !== null) { hi = 0; for (let i = 0; i < E.length; i++) if (!masked(i) && E[i] > hi) hi = E[i]; }
    $('bar-lo').textContent = '0'; $('bar-hi').textContent = hi.toPrecision(3);
  })();

  // ---- model view: every layer × head of the batch item, drawn when first opened ----
  let modelDirty = true;
  const modelDiv = $('model');
  function drawModel() {
    if (!modelDirty) return;
    modelDirty = false;
    $('model-what').textContent = (L > 1 ? 'every layer and head' : 'every head') + (B > 1 ? ' of batch item ' + real('batch', S.batch) : '');
    modelDiv.textContent = '';
    modelDiv.style.gridTemplateColumns = 'auto repeat(' + H + ', 66px)';
    modelDiv.appendChild(document.createElement('span'));
    for (let h = 0; h < H; h++) { const a = document.createElement('span'); a.className = 'axis'; a.textContent = 'head ' + real('head', h); modelDiv.appendChild(a); }
    for (let l = 0; l < L; l++) {
      const a = document.createElement('span'); a.className = 'axis'; a.textContent = dim.layer === undefined ? '' : 'layer ' + real('layer', l);
      modelDiv.appendChild(a);
      for (let h = 0; h < H; h++) {
        const c = document.createElement('canvas');
        c.width = thumbK; c.height = thumbQ; c.className = 'thumb'; c.dataset.l = l; c.dataset.h = h;
        c.title = D.names[slice(l, S.batch, h)] + ': click for its head view';
        const cx = c.getContext('2d'), d = cx.createImageData(thumbK, thumbQ);
        paintPooled(slice(l, S.batch, h), d.data); cx.putImageData(d, 0, 0);
        c.addEventListener('click', () => {
          S.layer = l; layerSel.value = l; S.on.fill(false); S.on[h] = true; S.cur = h; syncToggles(); show('head'); drawAll();
        });
        modelDiv.appendChild(c);
      }
    }
  }
  function show(tab) {
    $('head-tab').hidden = tab !== 'head'; $('model-tab').hidden = tab !== 'model';
    $('tab-head').classList.toggle('on', tab === 'head'); $('tab-model').classList.toggle('on', tab === 'model');
    if (tab === 'model') drawModel();
  }
  $('tab-head').addEventListener('click', () => show('head'));
  $('tab-model').addEventListener('click', () => show('model'));

  function drawAll() { drawHead(); drawMatrix(); if (!$('model-tab').hidden) drawModel(); }
  drawAll();
  // Reading a pixel back waits until the canvases are rasterised: the time is the frame's.
  hx.getImageData(0, 0, 1, 1); mx.getImageData(0, 0, 1, 1);
  $('frame-ms').textContent = performance.now().toFixed(0);

  if (location.hash === '#selftest') {
    const out = ['resources ' + performance.getEntriesByType('resource').length,
                 'canvas ' + hv.width + ' ' + hv.height + ' css ' + hvW + ' ' + hvH + ' ratio ' + dpr];
    thrIn.value = 0; thrIn.dispatchEvent(new Event('input'));
    // Head h alone: shown first, then the others hidden (the last head shown cannot be hidden).
    const only = h => { if (!S.on[h]) toggles[h].click(); toggles.forEach((t, j) => { if (j !== h && S.on[j]) t.click(); }); };
    // Every slice through the controls: its lines "SLICE QUERY KEY OPACITY" and its cells.
    for (let l = 0; l < L; l++)
      for (let b = 0; b < B; b++)
        for (let h = 0; h < H; h++) {
          layerSel.value = l; layerSel.dispatchEvent(new Event('change'));
          batchSel.value = b; batchSel.dispatchEvent(new Event('change'));
          only(h);
          rec = []; drawAll();
          rec.forEach(r => out.push(r.join(' ')));
          out.push('cells ' + slice(l, b, h) + ' ' + cellsDrawn);
        }
    rec = null;
    layerSel.value = 0; layerSel.dispatchEvent(new Event('change'));
    batchSel.value = 0; batchSel.dispatchEvent(new Event('change'));
    // Head toggles: all on draws every head of the layer; one click hides one.
    toggles.forEach((t, j) => { if (!S.on[j]) t.click(); });
    const heads = () => { rec = []; drawHead(); const d = new Set(rec.map(r => r[0])).size; rec = null; return d; };
    out.push('toggles ' + S.on.filter(x => x).length + ' drawn ' + heads());
    if (H > 1) { toggles[0].click(); out.push('toggles ' + S.on.filter(x => x).length + ' drawn ' + heads()); }
    // The last head shown stays when clicked: "last 1".
    only(0); toggles[0].click(); out.push('last ' + S.on.filter(x => x).length);
    // Hovering query q leaves only q's lines (a stray line counts 1000): "focus Q SHOWN".
    only(0);
    const r = hv.getBoundingClientRect();
    for (let q = 0; q < tq; q++) {
      hv.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + 2, clientY: r.top + yOf(q)}));
      rec = []; drawHead();
      out.push('focus ' + q + ' ' + rec.reduce((a, e) => a + (e[1] === q ? 1 : 1000), 0));
      rec = null;
      hv.dispatchEvent(new MouseEvent('mouseleave'));
    }
    // Sentence filter A→B: only lines from sentence A to sentence B.
    if (D.sentB > 0) {
      pairSel.value = 'AB'; pairSel.dispatchEvent(new Event('change'));
      rec = []; drawHead();
      out.push('pair AB bad ' + rec.filter(e => e[1] >= D.sentB || e[2] < D.sentB).length + ' lines ' + rec.length);
      rec = null; pairSel.value = 'all'; pairSel.dispatchEvent(new Event('change'));
    }
    // Model view: clicking thumbnail (l, h) opens the head view of layer l with head h alone.
    $('tab-model').click();
    out.push('thumbs ' + modelDiv.querySelectorAll('canvas.thumb').length);
    [[L - 1, H - 1], [0, Math.min(1, H - 1)]].forEach(([l, h]) => {
      $('tab-model').click();
      modelDiv.querySelector('canvas.thumb[data-l="' + l + '"][data-h="' + h + '"]').click();
      out.push('model ' + l + ' ' + h + ' opens layer ' + layerSel.value + ' heads ' +
               S.on.map((x, j) => x ? j : -1).filter(j => j >= 0).join(',') + ' ' + ($('head-tab').hidden ? 'model' : 'head'));
    });
    // Head colours, as the toggles show them: how many distinct, and the closest two (RGB
    // distance): "colours H distinct N closest D".
    const rgb = toggles.map(t => getComputedStyle(t).backgroundColor.match(/\d+/g).slice(0, 3).map(Number));
    let closest = Infinity;
    rgb.forEach((a, i) => rgb.slice(0, i).forEach(b => { closest = Math.min(closest, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2])); }));
    out.push('colours ' + H + ' distinct ' + new Set(rgb.map(c => c.join())).size + ' closest ' + (H > 1 ? closest.toFixed(1) : 'none'));
    // The first thumbnail's size and its yellow (top of the scale) pixels: "thumb W H bright N".
    $('tab-model').click();
    {
      const c = modelDiv.querySelector('canvas.thumb'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let bright = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] > 200 && d[i + 2] < 100) bright++;
      out.push('thumb ' + c.width + ' ' + c.height + ' bright ' + bright);
    }
    $('tab-head').click();
    // Every head shown, each query row in the window hovered: the rows the readout covers, and
    // whether it takes the pointer: "readout covers N of M rows, pointer none"; the tokens in
    // it isolated (FSI ... PDI): "isolated yes".
    toggles.forEach((t, j) => { if (!S.on[j]) t.click(); });
    let covered = 0, rows = 0, isolated = 'no', named = '';
    for (let q = 0; q < tq; q++) {
      const y = hv.getBoundingClientRect().top + yOf(q);
      if (y < 0 || y > window.innerHeight) continue;
      rows++;
      hv.dispatchEvent(new MouseEvent('mousemove', {clientX: hv.getBoundingClientRect().left + 2, clientY: y}));
      const b = readout.getBoundingClientRect();
      if (y >= b.top && y <= b.bottom) covered++;
      if (q === 0 && readout.textContent.includes('\u2068' + D.q[0] + '\u2069 (0)')) isolated = 'yes';
      if (q === 0) named = [...readout.textContent.matchAll(/head (\d+):/g)].map(m => m[1]).join(',');
    }
    hv.dispatchEvent(new MouseEvent('mouseleave'));
    out.push('readout covers ' + covered + ' of ' + rows + ' rows, pointer ' + getComputedStyle(readout).pointerEvents);
    out.push('isolated ' + isolated);
    // The heads the readout and the toggles name (their own numbers: "named heads 1 toggles 1" for --head 1).
    out.push('named heads ' + named + ' toggles ' + toggles.map(t => t.textContent).join(','));
    // The matrix readout: a cell's value, cleared on the margin: "matrix cell shown margin cleared".
    {
      const r = mv.getBoundingClientRect();
      mv.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + mLeft + cell / 2, clientY: r.top + mTop + cell / 2}));
      const on = readout.textContent !== idle ? 'shown' : 'none';
      mv.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + 1, clientY: r.top + 1}));
      out.push('matrix cell ' + on + ' margin ' + (readout.textContent === idle ? 'cleared' : 'kept'));
      mv.dispatchEvent(new MouseEvent('mouseleave'));
    }
    // Keys: down twice, right, Escape in the head view ("arrows q 1, k 1, none tabindex 0"); O on
    // the last head's toggle shows it alone ("key O heads H-1"); the toggles are buttons.
    const key = (el, k) => el.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true, cancelable: true}));
    const where = () => S.focus === null ? 'none' : S.focus.side + ' ' + S.focus.idx;
    hv.focus();
    key(hv, 'ArrowDown'); key(hv, 'ArrowDown'); const down = where();
    key(hv, 'ArrowRight'); const right = where();
    key(hv, 'Escape');
    out.push('arrows ' + down + ', ' + right + ', ' + where() + ' tabindex ' + hv.tabIndex);
    if (H > 1) { key(toggles[H - 1], 'o'); out.push('key O heads ' + S.on.map((x, j) => x ? j : -1).filter(j => j >= 0).join(',')); }
    out.push('buttons ' + document.querySelectorAll('button.head-toggle').length);
    $('selftest').textContent = out.join('\n');
  }
})();
)js";

// How the heads of w are pooled: the largest blocks count that keeps every head in the page.
Pooling page_pooling(const TensorView& w) {
    const std::size_t slices = w.slices();
    if (slices > max_weights)
        throw SettingError("html", "", " draws at most " + std::to_string(max_weights) + " heads, not " + std::to_string(slices));
    // pooled rows and columns grow with the side limit: the largest limit that fits
    std::size_t lo = 1, hi = std::min(std::max(w.rows(), w.cols()), max_page_side);
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        const Pooling p = plan_pooling(w.rows(), w.cols(), mid, mid);
        if (slices * p.pooled_rows * p.pooled_cols <= max_weights) lo = mid;
        else hi = mid - 1;
    }
    return plan_pooling(w.rows(), w.cols(), lo, lo);
}

Tensor max_pooled(const TensorView& w, const HtmlViewOptions& o) {
    const Pooling p = page_pooling(w);
    std::vector<std::size_t> dims = w.shape.to_vector();
    dims[dims.size() - 2] = p.pooled_rows, dims.back() = p.pooled_cols;
    Tensor pooled{Shape(dims)};
    for (std::size_t s = 0; s < w.slices(); ++s) {
        std::function<bool(std::size_t, std::size_t)> masked;
        if (o.masked) masked = [&o, s](std::size_t q, std::size_t k) { return o.masked(s, q, k); };
        max_pool(w.slice(s), masked, p, pooled.slice_data(s), pooled.row_stride());
    }
    return pooled;
}

HtmlViewOptions pooled_options(const TensorView& w, const HtmlViewOptions& o) {
    const Pooling p = page_pooling(w);
    HtmlViewOptions po = o;
    po.masked = {};  // a block with nothing shown is NaN, drawn as masked
    po.sentence_b = 0;  // token indices no longer apply
    po.query_labels = p.row_labels(), po.key_labels = p.col_labels();
    po.pooled_text = p.note() + " (queries × keys; the page holds at most " + std::to_string(max_weights) +
                     " weights, " + std::to_string(max_page_side) + " a side): each line and cell is the largest weight of "
                     "its block";
    return po;
}

// The leading dimensions' names: options.dim_names, or by rank (head; batch, head; layer,
// batch, head). The page indexes slices as layer, batch, head in C order.
std::vector<std::string> lead_names(const TensorView& w, const HtmlViewOptions& o) {
    const std::size_t lead = w.rank() - 2;
    static const std::vector<std::string> order{"layer", "batch", "head"};
    if (o.dim_names.empty()) return std::vector<std::string>(order.end() - std::ptrdiff_t(lead), order.end());
    if (o.dim_names.size() != lead)
        throw UsageError("the weights have " + std::to_string(lead) + " leading dimension" + (lead == 1 ? "" : "s") +
                         " (shape " + w.shape.text() + "), but " + std::to_string(o.dim_names.size()) + " names were given");
    std::size_t next = 0;
    for (const std::string& n : o.dim_names) {
        const auto at = std::find(order.begin(), order.end(), n);
        if (at == order.end() || std::size_t(at - order.begin()) < next)
            throw UsageError("invalid dimension names: expected some of layer, batch, head, in that order");
        next = std::size_t(at - order.begin()) + 1;
    }
    return o.dim_names;
}

// Where sentence B starts: options.sentence_b, or after the first [SEP] (or </s>) that has
// tokens after it, when queries and keys are the same tokens; 0 = no pair.
std::size_t sentence_b(const HtmlViewOptions& o, std::size_t tq, std::size_t tk) {
    if (o.sentence_b) return o.sentence_b < tq && o.sentence_b < tk ? o.sentence_b : 0;
    if (!o.sentence_b_from_labels || o.query_labels.size() != tq || o.query_labels != o.key_labels) return 0;
    for (std::size_t i = 0; i + 1 < tq; ++i)
        if (o.query_labels[i] == "[SEP]" || o.query_labels[i] == "</s>") return i + 1;
    return 0;
}

}  // namespace

std::string html_view(const TensorView& w, const HtmlViewOptions& o) {
    if (w.rank() < 2 || w.rank() > 5)
        throw SettingError("html", "",
                           " draws weights of shape (Tq, Tk), (H, Tq, Tk), (B, H, Tq, Tk) or (L, B, H, Tq, Tk), not " +
                               w.shape.text());
    const std::vector<std::string> lead = lead_names(w, o);
    const std::size_t tq = w.rows(), tk = w.cols(), slices = w.slices(), cells = tq * tk;
    if (w.shape.numel() > max_weights || std::max(tq, tk) > max_page_side)
        return html_view(max_pooled(w, o).view(), pooled_options(w, o));

    // 8-bit opacity codes of weight / scale (scale = 1, or the largest value when above 1),
    // one mask bit per cell (masked or NaN), and the exact float32 values when they fit.
    float top = 1;
    for (std::size_t s = 0; s < slices; ++s) {
        const MatrixView m = w.slice(s);
        for (std::size_t q = 0; q < tq; ++q)
            for (std::size_t k = 0; k < tk; ++k)
                if (std::isfinite(m(q, k)) && !(o.masked && o.masked(s, q, k))) top = std::max(top, m(q, k));
    }
    const std::size_t n = slices * cells;
    std::vector<unsigned char> codes(n), mask((n + 7) / 8), exact;
    const bool with_exact = n <= max_exact;
    if (with_exact) exact.resize(n * 4);
    bool any_masked = false;
    for (std::size_t s = 0; s < slices; ++s) {
        const MatrixView m = w.slice(s);
        for (std::size_t q = 0; q < tq; ++q)
            for (std::size_t k = 0; k < tk; ++k) {
                const std::size_t i = s * cells + q * tk + k;
                const float v = m(q, k);
                if (!std::isfinite(v) || (o.masked && o.masked(s, q, k))) {
                    mask[i / 8] |= static_cast<unsigned char>(1u << (i % 8));
                    any_masked = true;
                } else {
                    codes[i] = static_cast<unsigned char>(std::lround(std::clamp(v / top, 0.0f, 1.0f) * 255.0f));
                }
                if (with_exact) {  // little-endian float32, as Float32Array reads it on every browser host
                    std::uint32_t bits;
                    std::memcpy(&bits, &v, 4);
                    for (int b = 0; b < 4; ++b) exact[4 * i + b] = static_cast<unsigned char>(bits >> (8 * b));
                }
            }
    }

    if (!o.dim_indices.empty() && o.dim_indices.size() != lead.size())
        throw UsageError("the weights have " + std::to_string(lead.size()) + " leading dimensions, but indices for " +
                         std::to_string(o.dim_indices.size()) + " were given");
    // [name, extent, [the index each position stands for]]
    std::string lead_json = "[", names = "[";
    for (std::size_t d = 0; d < lead.size(); ++d) {
        if (!o.dim_indices.empty() && o.dim_indices[d].size() != w.shape[d])
            throw UsageError("dimension " + lead[d] + " has " + std::to_string(w.shape[d]) + " positions, but " +
                             std::to_string(o.dim_indices[d].size()) + " indices were given");
        std::string at = "[";
        for (std::size_t i = 0; i < w.shape[d]; ++i)
            at += (i ? "," : "") + std::to_string(o.dim_indices.empty() ? i : o.dim_indices[d][i]);
        lead_json += (d ? ",[" : "[") + json_string(lead[d]) + "," + std::to_string(w.shape[d]) + "," + at + "]]";
    }
    for (std::size_t s = 0; s < slices; ++s) {
        std::string name;
        if (o.slice_names.size() == slices) {
            name = o.slice_names[s];
        } else if (lead.empty()) {
            name = "weights";
        } else {
            std::size_t rest = s;
            std::vector<std::size_t> index(lead.size());
            for (std::size_t d = lead.size(); d-- > 0;) index[d] = rest % w.shape[d], rest /= w.shape[d];
            for (std::size_t d = 0; d < lead.size(); ++d)
                name += (d ? ", " : "") + lead[d] + " " +
                        std::to_string(o.dim_indices.empty() ? index[d] : o.dim_indices[d][index[d]]);
        }
        names += (s ? "," : "") + json_string(name);
    }
    std::string data = "{\"shape\":" + json_string(w.shape.text()) + ",\"lead\":" + lead_json + "],\"names\":" +
                       names + "],\"q\":" + labels_json(o.query_labels, tq) + ",\"k\":" +
                       labels_json(o.key_labels, tk) + ",\"scale\":" + json_number(top) +
                       ",\"sentB\":" + std::to_string(sentence_b(o, tq, tk)) + ",\"codes\":\"";
    data.reserve(data.size() + n / 3 * 4 * (with_exact ? 6 : 2) + 64);
    data += base64(codes) + "\",\"mask\":" + (any_masked ? "\"" + base64(mask) + "\"" : std::string("null")) +
            ",\"exact\":" + (with_exact ? "\"" + base64(exact) + "\"" : std::string("null")) + "}";

    std::string info = "shape " + w.shape.text();
    if (!o.scale_text.empty()) info += " · " + o.scale_text;
    info += " · " + (o.masking_text.empty() ? std::string("no mask") : "masking: " + o.masking_text);
    if (!o.pooled_text.empty()) info += " · " + o.pooled_text;
    // Opacity is weight / top in 8 bits: the weight itself when no value is above 1.
    const std::string opacity = top > 1 ? "the value ÷ the largest (" + json_number(top) + ")" : "the weight";
    info += with_exact ? " · line opacity: " + opacity + " in 8 bits; exact values on hover"
                       : " · line opacity and values on hover: " + opacity + " in 8 bits (exact values only in pages "
                         "of at most " + std::to_string(max_exact) + " weights)";

    std::string page;
    page.reserve(data.size() + 40000);
    page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    // Nothing may be fetched: inline script and style only.
    page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n";
    page += "<title>attn · " + html_text(o.title) + "</title>\n<style>" + style + "</style>\n</head>\n<body>\n";
    page += "<h1>" + html_text(o.title) + "</h1>\n<p id=\"info\">" + html_text(info) + "</p>\n";
    page += "<div id=\"tabs\"><button id=\"tab-head\" class=\"on\">head view</button>"
            "<button id=\"tab-model\">model view</button></div>\n";
    page += "<div id=\"controls\"><label id=\"layer-box\">layer <select id=\"layer\"></select></label>"
            "<label id=\"batch-box\">batch <select id=\"batch\"></select></label>"
            "<label id=\"pair-box\">sentences <select id=\"pair\"><option value=\"all\">all</option>"
            "<option value=\"AA\">A \u2192 A</option><option value=\"AB\">A \u2192 B</option>"
            "<option value=\"BA\">B \u2192 A</option><option value=\"BB\">B \u2192 B</option></select></label>"
            "<span id=\"heads-box\">heads <span id=\"heads\"></span></span>"
            "<label>hide lines below <input id=\"threshold\" type=\"range\" min=\"0\" max=\"255\" value=\"1\"> "
            "<span id=\"thr-text\"></span></label></div>\n";
    page += "<div id=\"head-tab\"><div id=\"views\">\n<div class=\"panel\"><h2 id=\"head-title\">head view (hover a token; click a "
            "head above to show or hide it)</h2><canvas id=\"headview\"></canvas></div>\n"
            "<div class=\"panel\"><h2 id=\"matrix-title\">matrix view</h2><canvas id=\"matrix\"></canvas>"
            "<div id=\"colorbar\"><span id=\"bar-lo\"></span><canvas id=\"bar\" width=\"160\" height=\"12\"></canvas>"
            "<span id=\"bar-hi\"></span></div></div>\n</div></div>\n";
    page += "<div id=\"model-tab\" hidden><p>model view: <span id=\"model-what\"></span> (click one for its head view)</p>"
            "<div id=\"model\"></div></div>\n";
    page += "<p id=\"readout\">hover a token or a cell</p>\n<pre id=\"selftest\"></pre>\n"
            "<p id=\"frame\" hidden>first frame drawn after <span id=\"frame-ms\"></span> ms</p>\n";
    page += "<script id=\"attn-data\" type=\"application/json\">" + data + "</script>\n";
    page += std::string("<script>") + script + "</script>\n</body>\n</html>\n";
    return page;
}

}  // namespace attn::viz
