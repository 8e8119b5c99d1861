/*
 * The script of the page written by bivtree.export.html_page.export_html, which inlines
 * it and its style (page.css, beside this file) into every page it writes.
 *
 * The script reads the JSON of the page's script element "bivtree-data" and builds the
 * page in the browser: node cards placed top down, an SVG scatter plot (or bars) per
 * decision node, edges, tooltips, collapse and expand, and the sample search. It needs
 * no library.
 *
 * For checks by a headless browser it writes its state into the body element:
 * data-status ("ready", or "error" with data-error), data-visible-nodes,
 * data-rendered-plots, data-root-points (points drawn in the root's plot, those
 * of its strip of samples with a missing value included), data-root-missing (points
 * in that strip),
 * data-expanded (nodes opened from the address) and data-path (the highlighted
 * path). The address fragment drives it too: #expand=3 clicks node 3 open (several:
 * #expand=3,7), #levels=2 sets the open levels, #search=TEXT runs a search;
 * join them with &. #selftest also writes where things are on the screen, in
 * client pixels x0,y0,x1,y1: data-view-box (the visible part of the tree's
 * scrolled view) and data-boxes (ID:x0,y0,x1,y1 per node shown, separated by
 * spaces), so that a headless browser's --dump-dom can check what is in view.
 *
 * The tree scrolls inside its own view under the header (which stays in place). It
 * opens with the root centred across and the first levels below it; a search
 * scrolls so that the highlighted path is centred, or, when it is larger than the
 * view, so that its matched node is in view with as much of the path as fits; a
 * click keeps the clicked node where it was. The layout is tidy (each subtree as
 * close to its sibling as their outlines allow, level by level), so the first
 * levels stay near the root.
 *
 * Labels that would not fit (long category sets, long feature names) are drawn
 * abbreviated, as bivtree.export.html_page shortened them, with their full text on
 * hover (an SVG title element, or a title attribute on a card's rule).
 *
 * Typed samples are routed by goesLeft, which repeats
 * bivtree._kernels.traversal.goes_left operation by operation, indicator
 * slots included (see bivtree.export.html_page).
 */
"use strict";
(function () {
  const body = document.body;
  const state = body.dataset;
  try {
    main();
  } catch (err) {
    state.status = "error";
    state.error = String(err && err.message ? err.message : err);
    const box = document.getElementById("result");
    box.className = "error";
    box.textContent = "the page failed: " + state.error;
    throw err;
  }

  function main() {
    const DATA = JSON.parse(document.getElementById("bivtree-data").textContent);
    const NODES = DATA.nodes;
    const N = NODES.length;
    const SVG_NS = "http://www.w3.org/2000/svg";
    const GAP = 16, VGAP = 34;                 // between cards, between levels (pixels)
    const PW = 190, PH = 150, ML = 40, MR = 8, MT = 6, MB = 30;   // plot and margins
    const SG = 10, SW = 36;   // gap before the strip of missing values, its width
    const MARGIN = 12;         // kept between a revealed node and the view's edge (pixels)
    const view = document.getElementById("view");
    const canvas = document.getElementById("tree");
    const edgeLayer = document.getElementById("edges");
    const tip = document.getElementById("tip");
    const result = document.getElementById("result");
    const collapsed = new Uint8Array(N);
    const cards = new Array(N);
    let boxes = new Map();                     // node -> [left, top, width, height] in #tree
    let focus = null;                          // the last reveal: its arguments, its scroll
    let openLevels = DATA.open_levels;
    let path = new Set();
    let sample = null;                         // typed feature values, or null

    // ------------------------------------------------------------ helpers
    function el(tag, cls, text) {
      const e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text !== undefined && text !== null) e.textContent = text;
      return e;
    }
    function sv(tag, attrs, parent) {
      const e = document.createElementNS(SVG_NS, tag);
      for (const k in attrs) e.setAttribute(k, attrs[k]);
      if (parent) parent.appendChild(e);
      return e;
    }
    // a label drawn shortened (``shown``: a text, or lines) keeps its full text on
    // hover, as the SVG title of its text element
    function label(svg, attrs, full, shown) {
      const t = sv("text", attrs, svg);
      const lines = Array.isArray(shown) ? shown : [shown === undefined || shown === null
                                                    ? String(full) : shown];
      if (lines.length === 1) {
        t.textContent = lines[0];
      } else {
        // further lines below the first, across the text's own direction
        lines.forEach((line, k) => {
          sv("tspan", {x: attrs.x, dy: k ? "1.1em" : (-(lines.length - 1) * 1.1) + "em"}, t)
            .textContent = line;
        });
      }
      if (lines.join(" ") !== String(full)) {
        t.setAttribute("class", ((attrs["class"] || "") + " abbrev").trim());
        sv("title", {}, t).textContent = full;
      }
      return t;
    }
    function tick(x) {
      if (x === 0) return "0";
      const a = Math.abs(x);
      if (a >= 1e-3 && a < 1e6) return String(Number(x.toPrecision(3)));
      return x.toExponential(2);
    }
    function viridis(s) {
      const stops = DATA.viridis;
      s = Math.min(1, Math.max(0, s)) * (stops.length - 1);
      const i = Math.min(Math.floor(s), stops.length - 2), f = s - i;
      const a = stops[i], b = stops[i + 1];
      return "rgb(" + [0, 1, 2].map(k => Math.round(a[k] + f * (b[k] - a[k]))).join(",") + ")";
    }
    function valueColour(v) {
      const lo = DATA.range[0], hi = DATA.range[1];
      return viridis(hi > lo ? (v - lo) / (hi - lo) : 0.5);
    }
    function pointColour(c) {
      if (c === null || c === undefined) return "#595959";
      return DATA.classes ? DATA.colours[c] : valueColour(c);
    }
    function isLeaf(nd) { return nd.left < 0; }

    // ------------------------------------------------------------ routing
    // The test of bivtree._kernels.traversal.goes_left, operation by operation:
    // s = 0.0, then s += w_k * v_k in slot order (float64, one rounding per
    // operation, as numba's kernel), then s <= t, where v_k is x[f_k] or, in an
    // indicator slot, the indicator of its set (traversal.slot_value); a
    // categorical node: an integer code in [0, 63] that belongs to the node's
    // set. A missing value (NaN) in a feature of the test takes the node's
    // missing side.
    function inSet(c, codes) {
      return c >= 0 && c <= 63 && c === Math.floor(c) && codes.indexOf(c) >= 0;
    }
    function indicator(c, codes) {
      if (Number.isNaN(c)) return NaN;
      return inSet(c, codes) ? 1.0 : 0.0;
    }
    function goesLeft(nd, x) {
      if (nd.categories !== null) {
        const c = x[nd.features[0]];
        if (Number.isNaN(c)) return nd.missing_left;
        return inSet(c, nd.categories);
      }
      const sets = nd.indicator_categories;
      let s = 0.0;
      for (let k = 0; k < nd.features.length; k++) {
        const v = x[nd.features[k]];
        s += nd.weights[k] * (sets[k] === null ? v : indicator(v, sets[k]));
      }
      return s <= nd.threshold || (Number.isNaN(s) && nd.missing_left);
    }
    function route(x) {
      let i = 0;
      const p = [0];
      while (!isLeaf(NODES[i])) {
        i = goesLeft(NODES[i], x) ? NODES[i].left : NODES[i].right;
        p.push(i);
      }
      return p;
    }
    function rowPath(r) {
      const p = [];
      for (let i = DATA.row_leaves[r]; i >= 0; i = NODES[i].parent) p.push(i);
      return p.reverse();
    }

    // ------------------------------------------------------------ plot geometry
    function clipHalfPlane(poly, a, b, t, keepLe) {
      const side = p => (keepLe ? 1 : -1) * (a * p[0] + b * p[1] - t);
      const out = [];
      for (let i = 0; i < poly.length; i++) {
        const p = poly[i], q = poly[(i + 1) % poly.length];
        const sp = side(p), sq = side(q);
        if (sp <= 0) out.push(p);
        if ((sp < 0 && 0 < sq) || (sq < 0 && 0 < sp)) {
          const r = sp / (sp - sq);
          out.push([p[0] + r * (q[0] - p[0]), p[1] + r * (q[1] - p[1])]);
        }
      }
      return out;
    }
    function lineInBox(a, b, t, box) {
      const [u0, u1, v0, v1] = box;
      const pts = [];
      if (b !== 0) for (const u of [u0, u1]) {
        const v = (t - a * u) / b;
        if (v0 <= v && v <= v1) pts.push([u, v]);
      }
      if (a !== 0) for (const v of [v0, v1]) {
        const u = (t - b * v) / a;
        if (u0 <= u && u <= u1) pts.push([u, v]);
      }
      if (pts.length < 2) return null;
      pts.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
      return [pts[0], pts[pts.length - 1]];
    }
    function include(box, pt) {
      let [u0, u1, v0, v1] = box;
      const [u, v] = pt;
      if (!(u0 <= u && u <= u1)) {
        const pad = 0.06 * (Math.max(u1, u) - Math.min(u0, u));
        u0 = Math.min(u0, u - pad); u1 = Math.max(u1, u + pad);
      }
      if (!(v0 <= v && v <= v1)) {
        const pad = 0.06 * (Math.max(v1, v) - Math.min(v0, v));
        v0 = Math.min(v0, v - pad); v1 = Math.max(v1, v + pad);
      }
      return [u0, u1, v0, v1];
    }
    // where typed values lie in a node's plot (plot.py's _sample_point)
    function samplePoint(nd, x) {
      const p = nd.plot;
      if (p.kind === "bars") {
        // a missing value (NaN) is the bar of the missing values, null in the data
        const j = p.values.indexOf(Number.isNaN(x[p.feature]) ? null : x[p.feature]);
        if (j < 0) return null;
        const h = p.stack ? p.stack[j].reduce((s, c) => s + c, 0) : p.heights[j];
        return [j, h];
      }
      let u = 0.0;
      if (p.kind === "indicators") {
        // the indicators' row (and column), not jittered (_IndicatorView.position)
        if (p.column !== null) u = indicator(x[p.column[0]], p.column[1]);
        else for (const [f, w] of p.u_terms) u = u + w * x[f];
        let v = 0.0;
        p.row_slots.forEach(([f, codes], j) => { v += indicator(x[f], codes) * (1 << j); });
        return [u, v];
      }
      for (const [f, w] of p.u_terms) u = u + w * x[f];
      if (p.v_feature !== null) return [u, x[p.v_feature]];
      const leaf = NODES[route(x).pop()];
      if (DATA.classes && DATA.has_labels) return [u, leaf["class"]];
      if (!DATA.classes && DATA.has_labels) return [u, leaf.value];
      return [u, 0];
    }
    function star(svg, px, py) {
      const pts = [];
      for (let k = 0; k < 10; k++) {
        const r = k % 2 ? 3.2 : 8, a = Math.PI * (k / 5 - 0.5);
        pts.push((px + r * Math.cos(a)).toFixed(1) + "," + (py + r * Math.sin(a)).toFixed(1));
      }
      sv("polygon", {points: pts.join(" "), "class": "star"}, svg);
    }
    function axisLabels(svg, p, yLabel, yShown) {
      label(svg, {x: ML + PW / 2, y: MT + PH + 25, "text-anchor": "middle", "class": "axis"},
            p.x_label, p.x_label_shown);
      label(svg, {x: 10, y: MT + PH / 2, "text-anchor": "middle", "class": "axis",
                  transform: "rotate(-90 10 " + (MT + PH / 2) + ")"}, yLabel, yShown);
    }

    // ------------------------------------------------------------ plots
    // the strip of samples missing a feature of the test, right of the scatter
    // (plot.py's _draw_missing_strip): shaded as the "yes" side when they go left
    function missingStrip(svg, nd, Y, mark) {
      const m = nd.plot.missing, s0 = ML + PW + SG;
      sv("line", {x1: ML + PW + SG / 2, y1: MT, x2: ML + PW + SG / 2, y2: MT + PH,
                  "class": "strip-gap"}, svg);
      sv("rect", {x: s0, y: MT, width: SW, height: PH,
                  "class": "missing-strip" + (nd.missing_left ? " yes" : "")}, svg);
      if (m) {
        const g = sv("g", {"class": "points missing"}, svg);
        for (let i = 0; i < m.x.length; i++) {
          sv("circle", {cx: (s0 + m.x[i] * SW).toFixed(1), cy: Y(m.v[i]).toFixed(1),
                        r: 1.8, fill: pointColour(m.c ? m.c[i] : null)}, g);
        }
      }
      sv("text", {x: s0 + SW / 2, y: MT + PH + 10, "text-anchor": "middle"},
         svg).textContent = "missing";
      if (mark) star(svg, s0 + SW / 2, Number.isFinite(mark[1]) ? Y(mark[1]) : MT + PH / 2);
    }
    function scatter(nd) {
      const p = nd.plot;
      let box = p.box;
      const mark = sample && path.has(nd.id) ? samplePoint(nd, sample) : null;
      // typed values missing a feature of the test are marked in the strip
      const markMissing = mark !== null && !(Number.isFinite(mark[0]) &&
                                             Number.isFinite(mark[1]));
      const strip = p.missing !== null || markMissing;
      const svg = sv("svg", {width: ML + PW + MR + (strip ? SG + SW : 0),
                             height: MT + PH + MB, "class": "plot"});
      svg.dataset.node = nd.id;
      if (mark && !markMissing) box = include(box, mark);
      const [u0, u1, v0, v1] = box;
      const X = u => ML + (u - u0) / (u1 - u0) * PW;
      const Y = v => MT + (v1 - v) / (v1 - v0) * PH;
      const corners = [[u0, v0], [u1, v0], [u1, v1], [u0, v1]];
      if (p.kind === "indicators") {
        // the pieces of the rows (or the cells of the grid) going left; null: open
        for (const [a, b, w0, w1, left] of p.pieces) {
          const x0 = Math.max(a === null ? u0 : a, u0), x1 = Math.min(b === null ? u1 : b, u1);
          if (!left || !(x1 > x0)) continue;
          sv("rect", {x: X(x0).toFixed(1), y: Y(w1).toFixed(1),
                      width: (X(x1) - X(x0)).toFixed(1), height: (Y(w0) - Y(w1)).toFixed(1),
                      "class": "yes"}, svg);
        }
      } else {
        const yes = clipHalfPlane(corners, p.a, p.b, p.t, true);
        if (yes.length >= 3) {
          sv("polygon", {points: yes.map(q => X(q[0]).toFixed(1) + "," + Y(q[1]).toFixed(1))
            .join(" "), "class": "yes"}, svg);
        }
      }
      const g = sv("g", {"class": "points"}, svg);
      const r = Math.max(1.3, Math.min(3.2, 40 / Math.sqrt(Math.max(p.u.length, 1)))).toFixed(1);
      for (let i = 0; i < p.u.length; i++) {
        sv("circle", {cx: X(p.u[i]).toFixed(1), cy: Y(p.v[i]).toFixed(1), r: r,
                      fill: pointColour(p.c ? p.c[i] : null)}, g);
      }
      if (p.kind === "indicators") {
        // each row's cut, a short segment across the row
        for (const [c, w0, w1] of p.cuts) {
          if (u0 <= c && c <= u1) {
            sv("line", {x1: X(c), y1: Y(w0), x2: X(c), y2: Y(w1), "class": "split"}, svg);
          }
        }
      } else {
        const line = lineInBox(p.a, p.b, p.t, box);
        if (line) {
          sv("line", {x1: X(line[0][0]), y1: Y(line[0][1]), x2: X(line[1][0]),
                      y2: Y(line[1][1]), "class": "split"}, svg);
        }
      }
      sv("rect", {x: ML, y: MT, width: PW, height: PH, "class": "frame"}, svg);
      const ty = MT + PH + 10;
      if (p.kind === "indicators" && p.x_ticks !== null) {
        p.x_ticks.forEach((name, j) => {
          label(svg, {x: X(j), y: ty, "text-anchor": "middle"}, name,
                p.x_ticks_shown && p.x_ticks_shown[j]);
        });
      } else {
        sv("text", {x: ML, y: ty, "text-anchor": "start"}, svg).textContent = tick(u0);
        sv("text", {x: ML + PW, y: ty, "text-anchor": "end"}, svg).textContent = tick(u1);
      }
      if (p.kind === "indicators") {
        // turned along the axis, as plot_tree writes them: a set is wider than the
        // margin; a long one in two lines, the first farther from the plot
        p.y_ticks.forEach((name, r) => {
          const at = Y(r).toFixed(1);
          label(svg, {x: ML - 5, y: at, "text-anchor": "middle",
                      transform: "rotate(-90 " + (ML - 5) + " " + at + ")"}, name,
                p.y_ticks_shown && p.y_ticks_shown[r]);
        });
      } else if (p.strip && DATA.classes && DATA.has_labels) {
        DATA.classes.forEach((name, k) => {
          sv("text", {x: ML - 3, y: Y(k) + 3, "text-anchor": "end"}, svg).textContent = name;
        });
      } else if (!p.strip) {
        sv("text", {x: ML - 3, y: MT + PH, "text-anchor": "end"}, svg).textContent = tick(v0);
        sv("text", {x: ML - 3, y: MT + 8, "text-anchor": "end"}, svg).textContent = tick(v1);
      }
      axisLabels(svg, p, p.strip ? "" : p.y_label, p.strip ? "" : p.y_label_shown);
      if (p.note) {
        const t = sv("text", {x: ML + PW - 3, y: MT + PH - 4, "text-anchor": "end",
                              "class": "subsample"}, svg);
        t.textContent = p.note;
      }
      if (strip) missingStrip(svg, nd, Y, markMissing ? mark : null);
      if (mark && !markMissing) star(svg, X(mark[0]), Y(mark[1]));
      return svg;
    }
    function bars(nd) {
      const p = nd.plot;
      const k = p.categories.length;
      const svg = sv("svg", {width: ML + PW + MR, height: MT + PH + MB, "class": "plot"});
      svg.dataset.node = nd.id;
      const heights = p.stack ? p.stack.map(row => row.reduce((s, c) => s + c, 0)) : p.heights;
      const top = Math.max(1, Math.max.apply(null, heights.concat([0]))) * 1.15;
      const slot = PW / Math.max(k, 1);
      const X = j => ML + (j + 0.5) * slot;
      const Y = v => MT + PH - v / top * PH;
      p.left.forEach((left, j) => {
        if (left) sv("rect", {x: ML + j * slot, y: MT, width: slot, height: PH, "class": "yes"},
                     svg);
      });
      const g = sv("g", {"class": "bars"}, svg);
      for (let j = 0; j < k; j++) {
        const w = slot * 0.7, x0 = X(j) - w / 2;
        if (p.stack) {
          let base = 0;
          p.stack[j].forEach((count, c) => {
            if (!count) return;
            sv("rect", {x: x0, y: Y(base + count), width: w, height: Y(base) - Y(base + count),
                        fill: DATA.colours[c]}, g);
            base += count;
          });
        } else if (heights[j]) {
          sv("rect", {x: x0, y: Y(heights[j]), width: w, height: MT + PH - Y(heights[j]),
                      fill: p.means ? valueColour(p.means[j]) : "#595959"}, g);
        }
        label(svg, {x: X(j), y: MT + PH + 10, "text-anchor": "middle",
                    "class": p.left[j] ? "bold" : ""}, p.categories[j],
              p.categories_shown && p.categories_shown[j]);
      }
      sv("rect", {x: ML, y: MT, width: PW, height: PH, "class": "frame"}, svg);
      sv("text", {x: ML - 3, y: MT + 8, "text-anchor": "end"}, svg).textContent =
        tick(Math.round(top));
      axisLabels(svg, p, "samples");
      const mark = sample && path.has(nd.id) ? samplePoint(nd, sample) : null;
      if (mark) star(svg, X(mark[0]), Y(mark[1]));
      return svg;
    }

    // ------------------------------------------------------------ cards
    function tipText(nd) {
      const lines = ["node #" + nd.id + "  (depth " + nd.depth + ")"];
      if (!isLeaf(nd)) {
        lines.push("if " + nd.rule + ":", "else:  # " + nd["else"]);
        lines.push("yes -> #" + nd.left + ", no -> #" + nd.right);
      }
      lines.push(nd.counts);
      if (DATA.has_data) lines.push("samples of the data here: " + nd.n_data);
      lines.push(nd.stats);
      return lines.join("\n");
    }
    function showTip(nd, ev) {
      tip.textContent = tipText(nd);
      tip.style.display = "block";
      moveTip(ev);
    }
    function moveTip(ev) {
      const w = tip.offsetWidth, h = tip.offsetHeight;
      let x = ev.clientX + 14, y = ev.clientY + 14;
      if (x + w > window.innerWidth) x = Math.max(0, ev.clientX - w - 14);
      if (y + h > window.innerHeight) y = Math.max(0, ev.clientY - h - 14);
      tip.style.left = x + "px";
      tip.style.top = y + "px";
    }
    function plotOf(nd) {
      if (!nd.plot) return null;
      return nd.plot.kind === "bars" ? bars(nd) : scatter(nd);
    }
    function card(nd) {
      if (cards[nd.id]) return cards[nd.id];
      const leaf = isLeaf(nd);
      const c = el("div", "node " + (leaf ? "leaf" : nd.plot ? "decision plot" : "decision text"));
      c.dataset.node = nd.id;
      if (leaf) {
        c.appendChild(el("div", "head", "#" + nd.id + "  " + nd.prediction));
        c.appendChild(el("div", "stats", nd.stats));
        c.style.background = nd.colour;
      } else {
        c.appendChild(el("div", "head", "#" + nd.id + "   " + nd.stats));
        const holder = el("div", "holder");
        const plot = plotOf(nd);
        if (plot) holder.appendChild(plot);
        c.appendChild(holder);
        if (nd.plot_note) c.appendChild(el("div", "note", nd.plot_note));
        // a rule of many long categories is shortened on the card, in full on hover
        const rule = el("div", "rule", nd.pretty_shown || nd.pretty);
        if (nd.pretty_shown && nd.pretty_shown !== nd.pretty) {
          rule.className = "rule abbrev";
          rule.setAttribute("title", nd.pretty);
        }
        c.appendChild(rule);
        c.appendChild(el("div", "toggle"));
        c.addEventListener("click", () => toggle(nd.id));
      }
      c.addEventListener("mouseenter", ev => showTip(nd, ev));
      c.addEventListener("mousemove", moveTip);
      c.addEventListener("mouseleave", () => { tip.style.display = "none"; });
      cards[nd.id] = c;
      return c;
    }
    function refreshPlot(id) {
      const c = cards[id];
      if (!c || !NODES[id].plot) return;
      const holder = c.querySelector(".holder");
      holder.replaceChildren(plotOf(NODES[id]));
    }

    // ------------------------------------------------------------ layout
    function visibleNodes() {
      const out = [], stack = [0];
      while (stack.length) {
        const i = stack.pop();
        out.push(i);
        const nd = NODES[i];
        if (!isLeaf(nd) && !collapsed[i]) stack.push(nd.right, nd.left);
      }
      return out;
    }
    function render() {
      const vis = visibleNodes();
      const shown = new Set(vis);
      for (const child of Array.from(canvas.children)) {
        if (child !== edgeLayer && !shown.has(Number(child.dataset.node))) child.remove();
      }
      for (const i of vis) {
        const c = card(NODES[i]);
        if (c.parentNode !== canvas) canvas.appendChild(c);
        c.classList.toggle("on-path", path.has(i));
        if (!isLeaf(NODES[i])) {
          c.dataset.collapsed = collapsed[i] ? "true" : "false";
          c.querySelector(".toggle").textContent = collapsed[i]
            ? "\u25b8 show the " + NODES[i].below + " nodes below" : "\u25be hide subtree";
        }
      }
      const w = new Map(), h = new Map();
      const levelH = [];
      // measured at the canvas's left edge and in its full width: a card placed near
      // the right edge by the last layout would be measured squeezed
      canvas.style.width = "";
      for (const i of vis) {
        cards[i].style.left = "0px";
        cards[i].style.width = "";
      }
      for (const i of vis) {
        // then held at that width, rounded up: a card whose right edge is the canvas's
        // would otherwise be squeezed by the fraction offsetWidth rounds away
        const c = cards[i];
        w.set(i, Math.ceil(c.getBoundingClientRect ? c.getBoundingClientRect().width
                                                   : c.offsetWidth));
        h.set(i, c.offsetHeight);
        const d = NODES[i].depth;
        levelH[d] = Math.max(levelH[d] || 0, h.get(i));
      }
      const open = i => !isLeaf(NODES[i]) && !collapsed[i];
      // A tidy layout (after Reingold & Tilford): the outline of a subtree is, per level,
      // its leftmost and rightmost pixel relative to its root's centre. Two siblings are
      // set as close as their outlines allow (GAP apart where they come closest) and
      // their parent centred above them, so a wide subtree on one side does not push
      // the other child far from the root, and the first levels stay near it.
      const outline = new Map(), half = new Map();
      for (let k = vis.length - 1; k >= 0; k--) {   // children before their parent
        const i = vis[k], nd = NODES[i], hw = w.get(i) / 2;
        if (!open(i)) {
          outline.set(i, [[-hw], [hw]]);
          continue;
        }
        const [ll, lr] = outline.get(nd.left), [rl, rr] = outline.get(nd.right);
        let sep = 0;
        for (let d = 0; d < Math.min(lr.length, rl.length); d++) {
          sep = Math.max(sep, lr[d] - rl[d] + GAP);
        }
        const s = sep / 2, lo = [-hw], hi = [hw];
        for (let d = 0; d < Math.max(ll.length, rl.length); d++) {
          lo.push(Math.min(d < ll.length ? ll[d] - s : Infinity, d < rl.length ? rl[d] + s
                                                                               : Infinity));
          hi.push(Math.max(d < lr.length ? lr[d] - s : -Infinity, d < rr.length ? rr[d] + s
                                                                                 : -Infinity));
        }
        half.set(i, s);
        outline.set(i, [lo, hi]);
        outline.delete(nd.left);
        outline.delete(nd.right);
      }
      const levelTop = [0];
      for (let d = 1; d < levelH.length; d++) levelTop[d] = levelTop[d - 1] + levelH[d - 1] + VGAP;
      // the canvas as wide on both sides of the root, so that the root can be centred
      // in the view whether the tree is wider than the view or not
      const [rootLo, rootHi] = outline.get(0);
      const reach = Math.max(-Math.min(...rootLo), Math.max(...rootHi));
      const centre = new Map([[0, reach]]);
      const width = 2 * reach;
      let height = 0;
      boxes = new Map();
      for (const i of vis) {                          // parents before their children
        const nd = NODES[i], cx = centre.get(i);
        if (open(i)) {
          centre.set(nd.left, cx - half.get(i));
          centre.set(nd.right, cx + half.get(i));
        }
        const x = cx - w.get(i) / 2, y = levelTop[nd.depth];
        cards[i].style.left = x + "px";
        cards[i].style.top = y + "px";
        cards[i].style.width = w.get(i) + "px";
        boxes.set(i, [x, y, w.get(i), h.get(i)]);
        height = Math.max(height, y + h.get(i));
      }
      canvas.style.width = width + "px";
      canvas.style.height = height + "px";
      edgeLayer.replaceChildren();
      edgeLayer.setAttribute("width", width);
      edgeLayer.setAttribute("height", height);
      for (const i of vis) {
        if (!open(i)) continue;
        const nd = NODES[i];
        const x0 = centre.get(i), y0 = levelTop[nd.depth] + h.get(i);
        [[nd.left, "yes"], [nd.right, "no"]].forEach(([kid, answer]) => {
          const x1 = centre.get(kid), y1 = levelTop[NODES[kid].depth];
          const on = path.has(i) && path.has(kid);
          sv("line", {x1: x0, y1: y0, x2: x1, y2: y1, "class": on ? "edge on-path" : "edge"},
             edgeLayer);
          const t = sv("text", {x: x0 + 0.4 * (x1 - x0), y: y0 + 0.4 * (y1 - y0) + 4,
                                "text-anchor": "middle", "class": "edge-label"}, edgeLayer);
          t.textContent = answer;
        });
      }
      document.getElementById("levels").textContent = String(openLevels);
      state.visibleNodes = String(vis.length);
      state.renderedPlots = String(canvas.querySelectorAll("svg.plot").length);
      const root = cards[0] && cards[0].querySelector("svg.plot");
      state.rootPoints = String(root ? root.querySelectorAll("circle, .bars rect").length : 0);
      state.rootMissing = String(root ? root.querySelectorAll(".missing circle").length : 0);
    }

    // ------------------------------------------------------------ scrolling
    // The tree scrolls inside #view; the layout's boxes (pixels in #tree) plus the
    // canvas's place in the view's content give where a node is, without reading the
    // screen back.
    function outlineOf(ids) {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const i of ids) {
        const b = boxes.get(i);
        if (!b) continue;
        x0 = Math.min(x0, b[0]);
        y0 = Math.min(y0, b[1]);
        x1 = Math.max(x1, b[0] + b[2]);
        y1 = Math.max(y1, b[1] + b[3]);
      }
      return x0 <= x1 ? [x0, y0, x1, y1] : null;
    }
    // the scroll position along one axis that centres [lo, hi]; when that does not fit
    // in ``size``, the nearest one that still shows [keepLo, keepHi] whole
    function scrollFor(lo, hi, keepLo, keepHi, offset, size) {
      let at = offset + (lo + hi - size) / 2;
      if (hi - lo + 2 * MARGIN > size) {
        at = Math.min(Math.max(at, offset + keepHi + MARGIN - size), offset + keepLo - MARGIN);
      }
      return Math.max(0, Math.round(at));
    }
    // bring the nodes ``ids`` into view, centred, keeping the nodes ``keep`` in it
    // (when ``ids`` do not fit); across only, with ``top``, the view's top
    function reveal(ids, keep, top) {
      const box = outlineOf(ids), k = outlineOf(keep) || box;
      if (!box) return;
      view.scrollLeft = scrollFor(box[0], box[2], k[0], k[2], canvas.offsetLeft || 0,
                                  view.clientWidth || 0);
      view.scrollTop = top ? 0 : scrollFor(box[1], box[3], k[1], k[3], canvas.offsetTop || 0,
                                           view.clientHeight || 0);
      // read back: the browser keeps a scroll position within the content
      focus = {args: [ids, keep, top], at: [view.scrollLeft, view.scrollTop]};
    }
    // a resized window keeps what was revealed in view, unless the reader scrolled since
    function onResize() {
      if (focus && view.scrollLeft === focus.at[0] && view.scrollTop === focus.at[1]) {
        reveal(...focus.args);
      }
    }
    // where node ``id`` is in the view now (content pixels minus the scroll)
    function onScreen(id) {
      const b = boxes.get(id);
      return [(canvas.offsetLeft || 0) + b[0] - (view.scrollLeft || 0),
              (canvas.offsetTop || 0) + b[1] - (view.scrollTop || 0)];
    }

    // ------------------------------------------------------------ interaction
    function setLevels(levels) {
      openLevels = Math.max(1, Math.min(levels, DATA.depth + 1));
      for (const nd of NODES) collapsed[nd.id] = !isLeaf(nd) && nd.depth >= openLevels - 1;
      render();
      reveal([0], [0], true);   // the root centred across, the first levels below it
    }
    function toggle(id) {
      const before = onScreen(id);
      collapsed[id] = collapsed[id] ? 0 : 1;
      render();
      // the clicked node stays under the pointer, however the layout moved it
      const after = onScreen(id);
      view.scrollLeft = (view.scrollLeft || 0) + after[0] - before[0];
      view.scrollTop = (view.scrollTop || 0) + after[1] - before[1];
    }
    function parseQuery(text) {
      const row = /^(?:row\s*|#)\s*(\d+)$/i.exec(text);
      const parts = text.split(/[\s,;]+/).filter(s => s.length);
      const nf = DATA.features.length;
      if (row || (parts.length === 1 && nf > 1 && /^\d+$/.test(parts[0]))) {
        const r = Number(row ? row[1] : parts[0]);
        if (!DATA.has_data) throw new Error("no data: the page can route typed values only");
        if (r >= DATA.row_leaves.length) {
          throw new Error("row " + r + " is not stored; rows 0 to " +
                          (DATA.row_leaves.length - 1) + " are");
        }
        return {row: r};
      }
      if (parts.length !== nf) {
        throw new Error("expected a row index or " + nf + " values (" +
                        DATA.features.join(", ") + "), got " + parts.length + " values");
      }
      // "nan", "na", "?" or "missing": a missing value
      const values = parts.map(p => (/^(nan|na|\?|missing)$/i.test(p) ? NaN : Number(p)));
      const bad = values.findIndex((v, k) => !Number.isFinite(v) &&
                                             !/^(nan|na|\?|missing)$/i.test(parts[k]));
      if (bad >= 0) throw new Error(DATA.features[bad] + ": not a number: " + parts[bad]);
      return {values: values};
    }
    function describe(p, label) {
      const leaf = NODES[p[p.length - 1]];
      const lines = [label + " -> leaf #" + leaf.id + ", " + leaf.prediction];
      for (let k = 0; k + 1 < p.length; k++) {
        const nd = NODES[p[k]], yes = p[k + 1] === nd.left;
        lines.push("  #" + nd.id + "  " + (yes ? nd.rule : nd["else"]) + "  (" +
                   (yes ? "yes" : "no") + ")");
      }
      return lines.join("\n");
    }
    function search(text) {
      text = text.trim();
      const before = Array.from(path);
      result.className = "";
      if (!text) {
        path = new Set(); sample = null;
        result.textContent = "";
      } else {
        let query;
        try {
          query = parseQuery(text);
        } catch (err) {
          result.className = "error";
          result.textContent = err.message;
          return;
        }
        const p = query.row !== undefined ? rowPath(query.row) : route(query.values);
        path = new Set(p);
        sample = query.values || null;
        for (const i of p) if (!isLeaf(NODES[i])) collapsed[i] = 0;
        result.textContent = describe(p, query.row !== undefined ? "row " + query.row
                                                                 : "sample");
      }
      for (const i of before.concat(Array.from(path))) refreshPlot(i);
      state.path = Array.from(path).join(",");
      render();
      // the path centred in the view, or, longer than the view, its matched node (the
      // last on the path, a leaf) in view with as much of the way to it as fits
      const p = Array.from(path);
      if (p.length) reveal(p, [p[p.length - 1]], false);
    }

    // ------------------------------------------------------------ page
    function header() {
      const nf = DATA.features.length;
      let text = DATA.kind + ", " + N + " nodes, " + DATA.n_leaves + " leaves, depth " +
        DATA.depth + ", " + nf + " features";
      if (DATA.has_data) text += "; plots of " + DATA.n_rows.toLocaleString("en-US") +
        " samples, at most " + DATA.max_points.toLocaleString("en-US") + " points each";
      else text += "; no data given, so no plots";
      // what the model was held to, as export_text's first line says it
      if (DATA.constraints) text += "; fitted under " + DATA.constraints;
      document.getElementById("summary").textContent = text +
        ". Click a node to open or close its subtree; hover for its rule.";
      const legend = document.getElementById("legend");
      if (DATA.classes) {
        DATA.classes.forEach((name, k) => {
          const chip = el("span", "chip");
          const dot = el("i");
          dot.style.background = DATA.colours[k];
          chip.append(dot, document.createTextNode(name));
          legend.appendChild(chip);
        });
      } else {
        const scale = el("span", "scale");
        const stops = DATA.viridis.map(c => "rgb(" + c.join(",") + ")").join(",");
        scale.style.background = "linear-gradient(to right," + stops + ")";
        legend.append(document.createTextNode(DATA.target_name + ": " + tick(DATA.range[0])),
                      scale, document.createTextNode(tick(DATA.range[1])));
      }
      document.getElementById("query").placeholder = DATA.has_data
        ? "a row index of the data (0 to " + (DATA.n_rows - 1) + ") or " + nf + " values"
        : nf + " values: " + DATA.features.slice(0, 4).join(", ") + (nf > 4 ? ", ..." : "");
    }
    function fromAddress() {
      const expanded = [];
      let selftest = false;
      for (const part of location.hash.replace(/^#/, "").split("&")) {
        const at = part.indexOf("=");
        const key = at < 0 ? part : part.slice(0, at);
        const value = at < 0 ? "" : decodeURIComponent(part.slice(at + 1));
        if (key === "selftest") selftest = true;
        if (key === "levels") setLevels(Number(value));
        if (key === "search") {
          document.getElementById("query").value = value;
          search(value);
        }
        if (key === "expand") {
          for (const id of value.split(",").map(Number)) {
            if (!(id >= 0 && id < N) || isLeaf(NODES[id])) continue;
            // open the way down to the node, then click it as a reader would
            for (let a = NODES[id].parent; a >= 0; a = NODES[a].parent) collapsed[a] = 0;
            if (!collapsed[id]) collapsed[id] = 1;
            render();
            cards[id].dispatchEvent(new MouseEvent("click", {bubbles: true}));
            expanded.push(id);
          }
        }
      }
      state.expanded = expanded.join(",");
      if (selftest) measure();
    }
    // for checks by a headless browser (#selftest): where the view and each node shown
    // are on the screen, in client pixels x0,y0,x1,y1
    function measure() {
      const r = view.getBoundingClientRect();
      const x0 = r.left + view.clientLeft, y0 = r.top + view.clientTop;
      state.viewBox = [x0, y0, x0 + view.clientWidth, y0 + view.clientHeight]
        .map(Math.round).join(",");
      state.boxes = visibleNodes().map(i => {
        const b = cards[i].getBoundingClientRect();
        return i + ":" + [b.left, b.top, b.right, b.bottom].map(Math.round).join(",");
      }).join(" ");
    }

    header();
    document.getElementById("fewer").addEventListener("click", () => setLevels(openLevels - 1));
    document.getElementById("more").addEventListener("click", () => setLevels(openLevels + 1));
    document.getElementById("all").addEventListener("click", () => setLevels(DATA.depth + 1));
    document.getElementById("search").addEventListener("submit", ev => {
      ev.preventDefault();
      search(document.getElementById("query").value);
    });
    document.getElementById("clear").addEventListener("click", () => {
      document.getElementById("query").value = "";
      search("");
    });
    window.addEventListener("resize", onResize);
    setLevels(openLevels);
    fromAddress();
    state.status = "ready";
  }
})();
