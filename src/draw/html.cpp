// The interactive HTML view of attention weights (include/attn/html_view.hpp). The weights
// go into the page as JSON; a small script draws the head view and the matrix view from it.
#include <algorithm>
#include <charconv>
#include <cmath>
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

constexpr const char* style = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #222; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; }
#info { color: #555; margin: 0 0 10px; }
#controls { margin-bottom: 8px; }
#views { display: flex; gap: 32px; align-items: flex-start; flex-wrap: wrap; }
.panel h2 { font-size: 14px; margin: 0 0 4px; color: #444; font-weight: 600; }
svg text { font: 13px system-ui, sans-serif; fill: #222; cursor: default; }
svg text.tok:hover, svg text.tok.focus { fill: #c0392b; font-weight: 600; }
line.attn-line { stroke: #1f6fb4; stroke-width: 2; }
rect.cell:hover { stroke: #e74c3c; stroke-width: 2; }
#readout { font: 13px ui-monospace, monospace; min-height: 1.4em; margin-top: 8px; color: #333; }
#selftest { display: none; }
)css";

constexpr const char* script = R"js(
(function () {
  'use strict';
  const D = JSON.parse(document.getElementById('attn-data').textContent);
  const NS = 'http://www.w3.org/2000/svg';   // an XML namespace name, not a download
  const tq = D.q.length, tk = D.k.length;
  const sel = document.getElementById('head'), readout = document.getElementById('readout');
  const head = document.getElementById('headview'), mat = document.getElementById('matrix');
  const stops = [[68,1,84],[72,36,117],[59,82,139],[44,114,142],[33,145,140],[39,173,129],[94,201,98],[173,220,48],[253,231,37]];
  function viridis(t) {
    t = Math.max(0, Math.min(1, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i;
    const c = stops[i].map((v, k) => Math.round(v + f * (stops[i + 1][k] - v)));
    return 'rgb(' + c.join(',') + ')';
  }
  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    parent.appendChild(e);
    return e;
  }
  let M = null;  // the mask of the head shown
  function masked(q, k) { return M !== null && M[q][k] === 1; }
  function fmt(w) { return w === null ? 'nan' : w.toPrecision(4); }
  D.heads.forEach((h, i) => { const o = document.createElement('option'); o.value = i; o.textContent = h.name; sel.appendChild(o); });
  if (D.heads.length < 2) document.getElementById('controls').style.display = 'none';

  const row = 22, top = 24, labelW = Math.min(160, 12 + 7.5 * D.q.concat(D.k).reduce((m, s) => Math.max(m, s.length), 1)), gap = 180;
  function drawHead(hi) {
    const W = D.heads[hi].w;
    head.textContent = '';
    const n = Math.max(tq, tk);
    head.setAttribute('width', 2 * labelW + gap);
    head.setAttribute('height', top + n * row + 8);
    el('text', {x: labelW - 6, y: 14, 'text-anchor': 'end', 'font-weight': 600}, head).textContent = 'queries';
    el('text', {x: labelW + gap + 6, y: 14, 'font-weight': 600}, head).textContent = 'keys';
    const lines = el('g', {}, head);
    for (let q = 0; q < tq; q++)
      for (let k = 0; k < tk; k++) {
        if (masked(q, k) || W[q][k] === null) continue;
        el('line', {class: 'attn-line', x1: labelW, y1: top + q * row + row / 2, x2: labelW + gap,
                    y2: top + k * row + row / 2, 'stroke-opacity': W[q][k], 'data-q': q, 'data-k': k,
                    'data-w': W[q][k]}, lines);
      }
    const all = lines.querySelectorAll('line');
    function focus(side, idx, label) {
      all.forEach(l => { l.style.display = l.getAttribute(side) == idx ? '' : 'none'; });
      const best = [];
      for (let j = 0; j < (side === 'data-q' ? tk : tq); j++) {
        const w = side === 'data-q' ? W[idx][j] : W[j][idx];
        if (w !== null && !(side === 'data-q' ? masked(idx, j) : masked(j, idx))) best.push([w, j]);
      }
      best.sort((a, b) => b[0] - a[0]);
      const names = side === 'data-q' ? D.k : D.q;
      readout.textContent = label + ': ' + best.slice(0, 5).map(([w, j]) => names[j] + ' ' + fmt(w)).join(', ');
    }
    function unfocus() { all.forEach(l => { l.style.display = ''; }); }
    D.q.forEach((s, q) => {
      const t = el('text', {class: 'tok', x: labelW - 6, y: top + q * row + row / 2 + 4, 'text-anchor': 'end'}, head);
      t.textContent = s;
      t.addEventListener('mouseenter', () => { t.classList.add('focus'); focus('data-q', q, 'query ' + s + ' attends to'); });
      t.addEventListener('mouseleave', () => { t.classList.remove('focus'); unfocus(); });
    });
    D.k.forEach((s, k) => {
      const t = el('text', {class: 'tok', x: labelW + gap + 6, y: top + k * row + row / 2 + 4}, head);
      t.textContent = s;
      t.addEventListener('mouseenter', () => { t.classList.add('focus'); focus('data-k', k, 'key ' + s + ' is attended by'); });
      t.addEventListener('mouseleave', () => { t.classList.remove('focus'); unfocus(); });
    });
  }

  function drawMatrix(hi) {
    const W = D.heads[hi].w;
    mat.textContent = '';
    const cell = Math.max(6, Math.min(28, Math.floor(420 / Math.max(tq, tk))));
    const left = labelW, topM = labelW;
    mat.setAttribute('width', left + tk * cell + 8);
    mat.setAttribute('height', topM + tq * cell + 8);
    let lo = Infinity, hi2 = -Infinity;
    for (let q = 0; q < tq; q++) for (let k = 0; k < tk; k++)
      if (!masked(q, k) && W[q][k] !== null) { lo = Math.min(lo, W[q][k]); hi2 = Math.max(hi2, W[q][k]); }
    const span = hi2 > lo ? hi2 - lo : 1;
    if (cell >= 10) {
      D.q.forEach((s, q) => { el('text', {x: left - 4, y: topM + q * cell + cell / 2 + 4, 'text-anchor': 'end'}, mat).textContent = s; });
      D.k.forEach((s, k) => {
        const x = left + k * cell + cell / 2 + 4, y = topM - 4;
        el('text', {x: x, y: y, transform: 'rotate(-90 ' + x + ' ' + y + ')'}, mat).textContent = s;
      });
    }
    for (let q = 0; q < tq; q++)
      for (let k = 0; k < tk; k++) {
        const w = W[q][k], m = masked(q, k);
        const r = el('rect', {class: 'cell', x: left + k * cell, y: topM + q * cell, width: cell, height: cell,
                              fill: m || w === null ? '#ccc' : viridis((w - lo) / span), 'data-q': q, 'data-k': k}, mat);
        const text = 'query ' + D.q[q] + ' \u2192 key ' + D.k[k] + ': ' + (m ? 'masked' : fmt(w));
        el('title', {}, r).textContent = text;
        r.addEventListener('mouseenter', () => { readout.textContent = text; });
      }
  }

  function draw() { M = D.heads[+sel.value].m; drawHead(+sel.value); drawMatrix(+sel.value); }
  sel.addEventListener('change', draw);
  draw();

  if (location.hash === '#selftest') {
    // Every line drawn, head by head, as the DOM holds it: "HEAD QUERY KEY OPACITY".
    const out = [];
    for (let h = 0; h < D.heads.length; h++) {
      sel.value = h; draw();
      head.querySelectorAll('line.attn-line').forEach(l =>
        out.push(h + ' ' + l.getAttribute('data-q') + ' ' + l.getAttribute('data-k') + ' ' + l.getAttribute('stroke-opacity')));
      out.push('cells ' + h + ' ' + mat.querySelectorAll('rect.cell').length);
    }
    sel.value = 0; draw();
    // Hovering query token q must leave exactly q's lines visible: "focus Q VISIBLE".
    head.querySelectorAll('text.tok').forEach((t, i) => {
      if (i >= tq) return;
      t.dispatchEvent(new MouseEvent('mouseenter'));
      let shown = 0;
      head.querySelectorAll('line.attn-line').forEach(l => {
        if (l.style.display !== 'none') shown += l.getAttribute('data-q') == i ? 1 : 1000;
      });
      out.push('focus ' + i + ' ' + shown);
      t.dispatchEvent(new MouseEvent('mouseleave'));
    });
    document.getElementById('selftest').textContent = out.join('\n');
  }
})();
)js";

// How the heads of w are pooled: the largest blocks count that keeps every head in the page.
Pooling page_pooling(const TensorView& w) {
    const std::size_t slices = w.slices();
    if (slices > max_weights)
        throw SettingError("html", "", " draws at most " + std::to_string(max_weights) + " heads, not " + std::to_string(slices));
    // pooled rows and columns grow with the side limit: the largest limit that fits
    std::size_t lo = 1, hi = std::max(w.rows(), w.cols());
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
    po.query_labels = p.row_labels(), po.key_labels = p.col_labels();
    po.pooled_text = p.note() + " (queries × keys; the page holds at most " + std::to_string(max_weights) +
                     " weights): each line and cell is the largest weight of its block";
    return po;
}

}  // namespace

std::string html_view(const TensorView& w, const HtmlViewOptions& o) {
    if (w.rank() < 2 || w.rank() > 4)
        throw SettingError("html", "", " draws weights of shape (Tq, Tk), (H, Tq, Tk) or (B, H, Tq, Tk), not " + w.shape.text());
    const std::size_t tq = w.rows(), tk = w.cols(), slices = w.slices();
    if (w.shape.numel() > max_weights) return html_view(max_pooled(w, o).view(), pooled_options(w, o));
    const std::size_t heads_per_batch = w.rank() >= 3 ? w.shape[w.rank() - 3] : 1;

    std::string data = "{\"shape\":" + json_string(w.shape.text()) + ",\"q\":" + labels_json(o.query_labels, tq) +
                       ",\"k\":" + labels_json(o.key_labels, tk) + ",\"heads\":[";
    for (std::size_t s = 0; s < slices; ++s) {
        std::string name = o.slice_names.size() == slices ? o.slice_names[s]
                           : w.rank() == 2             ? "weights"
                           : w.rank() == 3             ? "head " + std::to_string(s)
                                                       : "batch " + std::to_string(s / heads_per_batch) + ", head " +
                                                 std::to_string(s % heads_per_batch);
        data += (s ? ",{\"name\":" : "{\"name\":") + json_string(name) + ",\"w\":[";
        const MatrixView m = w.slice(s);
        for (std::size_t q = 0; q < tq; ++q) {
            data += q ? ",[" : "[";
            for (std::size_t k = 0; k < tk; ++k) data += (k ? "," : "") + json_number(m(q, k));
            data += "]";
        }
        data += "],\"m\":";
        if (o.masked) {
            data += "[";
            for (std::size_t q = 0; q < tq; ++q) {
                data += q ? ",[" : "[";
                for (std::size_t k = 0; k < tk; ++k) data += (k ? "," : "") + std::string(o.masked(s, q, k) ? "1" : "0");
                data += "]";
            }
            data += "]}";
        } else {
            data += "null}";
        }
    }
    data += "]}";

    std::string info = "shape " + w.shape.text();
    if (!o.scale_text.empty()) info += " · " + o.scale_text;
    info += " · " + (o.masking_text.empty() ? std::string("no mask") : "masking: " + o.masking_text);
    if (!o.pooled_text.empty()) info += " · " + o.pooled_text;

    std::string page;
    page.reserve(data.size() + 12000);
    page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    // Nothing may be fetched: inline script and style only.
    page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n";
    page += "<title>attn · " + html_text(o.title) + "</title>\n<style>" + style + "</style>\n</head>\n<body>\n";
    page += "<h1>" + html_text(o.title) + "</h1>\n<p id=\"info\">" + html_text(info) + "</p>\n";
    page += "<div id=\"controls\"><label>head <select id=\"head\"></select></label></div>\n";
    page += "<div id=\"views\">\n<div class=\"panel\"><h2>head view (hover a token)</h2><svg id=\"headview\"></svg></div>\n"
            "<div class=\"panel\"><h2>matrix view (rows: queries, columns: keys)</h2><svg id=\"matrix\"></svg></div>\n</div>\n";
    page += "<p id=\"readout\">hover a token or a cell</p>\n<pre id=\"selftest\"></pre>\n";
    page += "<script id=\"attn-data\" type=\"application/json\">" + data + "</script>\n";
    page += std::string("<script>") + script + "</script>\n</body>\n</html>\n";
    return page;
}

}  // namespace attn::viz
