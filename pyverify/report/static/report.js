// The report page's behaviour: views, zoom and pan, search, filters, focus on one claim's ancestors and
// descendants, the claim panel with the address bar and history, the keyboard, the full-window graph
// and printing. Plain DOM code, no library: the page must work from file:// with no network.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const canvas = document.getElementById("canvas");
  const searchBox = document.getElementById("search");
  const shownCount = document.getElementById("shown-count");
  const clearFocusButton = document.getElementById("clear-focus");
  const viewSelect = document.getElementById("view-select");
  const viewNote = document.getElementById("view-note");
  const panel = document.getElementById("panel");
  const graphSection = document.getElementById("graph-section");
  const fullWindowButton = document.getElementById("full-window");
  const wheelHint = document.getElementById("wheel-hint");
  const narrow = window.matchMedia("(max-width: 800px)");
  const READABLE_SCALE = 0.8;    // screen pixels per drawing unit, at least, when centred on one claim
  const MAX_SCALE = 1.6;         // screen pixels per drawing unit: fit never zooms in further
  const state = { focus: null, focusSet: null, selected: null, matchIndex: -1, autoFit: true };

  const esc = (id) => CSS.escape(id);
  const views = () => Array.from(canvas.querySelectorAll(".view"));
  const currentView = () => views().find((v) => !v.hidden);
  const currentSvg = () => currentView().querySelector("svg.graph");
  const nodeIn = (svg, id) => svg.querySelector(`.node[data-id="${esc(id)}"]`);
  const shownNodes = (svg) => Array.from(svg.querySelectorAll(".node:not(.hidden)"));
  const claimOf = (id) => data.claims[id] || { premises: [], conclusions: [], search: "", doc: "" };

  // ---------------------------------------------------------------- geometry: each view keeps its viewBox
  const boxes = new Map();
  function nodeSize(svg) { return [Number(svg.dataset.nodeW) || 150, Number(svg.dataset.nodeH) || 30]; }
  function corner(node) {
    const t = node.transform.baseVal.consolidate();
    return t ? [t.matrix.e, t.matrix.f] : [0, 0];
  }
  function centre(svg, node) {
    const [x, y] = corner(node), [w, h] = nodeSize(svg);
    return [x + w / 2, y + h / 2];
  }
  function setBox(svg, box) {
    boxes.set(svg, box);
    svg.setAttribute("viewBox", box.map((v) => v.toFixed(1)).join(" "));
    if (tipNode) placeTip(tipNode);
  }
  function screenSize(svg) {
    const r = svg.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? [r.width, r.height] : [900, 600];
  }
  // the smallest box around [x0, x1] x [y0, y1] (plus a margin) with the canvas's shape
  function frame(svg, x0, y0, x1, y1) {
    const [sw, sh] = screenSize(svg), pad = 24;
    let w = Math.max(x1 - x0 + 2 * pad, sw / MAX_SCALE), h = Math.max(y1 - y0 + 2 * pad, sh / MAX_SCALE);
    if (w / h > sw / sh) h = w * sh / sw; else w = h * sw / sh;
    setBox(svg, [(x0 + x1) / 2 - w / 2, (y0 + y1) / 2 - h / 2, w, h]);
  }
  // fit: every node the view shows now (search, filters and focus applied), the whole drawing when none
  function fit(svg) {
    const nodes = shownNodes(svg), [nw, nh] = nodeSize(svg);
    state.autoFit = true;
    if (!nodes.length) { frame(svg, 0, 0, Number(svg.dataset.w), Number(svg.dataset.h)); return; }
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const n of nodes) {
      const [x, y] = corner(n);
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x + nw); y1 = Math.max(y1, y + nh);
    }
    frame(svg, x0 - 10, y0 - 10, x1 + 10, y1 + 10);   // room for the corner marks
  }
  function zoom(svg, factor, at) {
    const [x, y, w, h] = boxes.get(svg), [px, py] = at || [x + w / 2, y + h / 2];
    state.autoFit = false;
    setBox(svg, [px - (px - x) * factor, py - (py - y) * factor, w * factor, h * factor]);
  }
  function inBox(svg, point) {
    const [x, y, w, h] = boxes.get(svg);
    return point[0] >= x && point[0] <= x + w && point[1] >= y && point[1] <= y + h;
  }
  // what + and - zoom around: the open claim when it is in sight, else the shown claims in sight
  function zoomAnchor(svg) {
    const sel = state.selected && nodeIn(svg, state.selected);
    if (sel && !sel.classList.contains("hidden") && inBox(svg, centre(svg, sel))) return centre(svg, sel);
    const seen = shownNodes(svg).map((n) => centre(svg, n)).filter((p) => inBox(svg, p));
    if (!seen.length) return undefined;
    return [seen.reduce((s, p) => s + p[0], 0) / seen.length, seen.reduce((s, p) => s + p[1], 0) / seen.length];
  }
  function centreOn(svg, node) {
    const [, , w0, h0] = boxes.get(svg), w = Math.min(w0, screenSize(svg)[0] / READABLE_SCALE), h = h0 * w / w0;
    const [cx, cy] = centre(svg, node);
    state.autoFit = false;
    setBox(svg, [cx - w / 2, cy - h / 2, w, h]);
  }
  function keepInSight(svg, node) {
    const [x, y] = corner(node), [nw, nh] = nodeSize(svg);
    if (!inBox(svg, [x, y]) || !inBox(svg, [x + nw, y + nh])) {
      const [, , w, h] = boxes.get(svg), [cx, cy] = centre(svg, node);
      state.autoFit = false;
      setBox(svg, [cx - w / 2, cy - h / 2, w, h]);
    }
  }
  function toGraph(svg, ev) {
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(svg.getScreenCTM().inverse());
    return [p.x, p.y];
  }

  // ---------------------------------------------------------------- a node's name, legible at any zoom
  // At fit the whole graph is small on screen; the node under the pointer or the keyboard focus shows its
  // id, its title (rendered as in its panel) and its verdict in page-sized text beside it.
  const tip = document.getElementById("node-tip");
  let tipNode = null;
  function titleOf(id) {
    const template = document.querySelector(`template.claim-template[data-id="${esc(id)}"]`);
    return template ? template.content.querySelector("h2 small") : null;
  }
  function showTip(node) {
    tipNode = node;
    const id = node.dataset.id, title = titleOf(id);
    tip.replaceChildren();
    const name = document.createElement("b");
    name.textContent = id;
    tip.append(name);
    if (title) { const t = document.createElement("span"); t.className = "tip-title"; t.append(...Array.from(title.childNodes, (c) => c.cloneNode(true))); tip.append(" ", t); }
    const verdict = document.createElement("span");
    verdict.className = `badge v-${node.dataset.verdict}`;
    verdict.textContent = node.dataset.verdict.replace("not-run", "not run");
    tip.append(" ", verdict);
    tip.hidden = false;
    placeTip(node);
  }
  function hideTip() { tipNode = null; tip.hidden = true; }
  // under the node, or above it where the canvas ends, always inside the canvas
  function placeTip(node) {
    const c = canvas.getBoundingClientRect(), r = node.getBoundingClientRect();
    if (node.classList.contains("hidden") || r.bottom < c.top || r.top > c.bottom || r.right < c.left || r.left > c.right) { tip.hidden = true; return; }
    tip.hidden = false;
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let top = r.bottom - c.top + 6;
    if (top + h > c.height) top = Math.max(0, r.top - c.top - h - 6);
    tip.style.left = `${Math.max(0, Math.min(r.left - c.left, c.width - w - 2))}px`;
    tip.style.top = `${top}px`;
  }
  canvas.querySelectorAll("svg.graph .node").forEach((node) => {
    // the node's name for a screen reader, in the words the tip shows (its SVG <title> would be the raw LaTeX)
    const title = node.querySelector("title"), words = titleOf(node.dataset.id);
    node.setAttribute("aria-label", `${node.dataset.id}: ${words ? words.textContent.trim() : ""} (${node.dataset.kind}), ${node.dataset.verdict.replace("not-run", "not run")}`);
    if (title) title.remove();
  });

  // ---------------------------------------------------------------- pointer: drag to pan, ctrl + wheel to zoom
  let hintTimer = null;
  function showWheelHint() {
    wheelHint.hidden = false;
    clearTimeout(hintTimer);
    hintTimer = setTimeout(() => { wheelHint.hidden = true; }, 1200);
  }
  canvas.querySelectorAll("svg.graph").forEach((svg) => {
    // the drawing's own size, before the element is stretched over the canvas
    svg.dataset.w = svg.viewBox.baseVal.width;
    svg.dataset.h = svg.viewBox.baseVal.height;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("tabindex", "-1");   // the drawing itself is no tab stop: its one node is
    boxes.set(svg, [0, 0, Number(svg.dataset.w), Number(svg.dataset.h)]);
    // the wheel scrolls the page as everywhere else; with Ctrl (a pinch) or in the full window it zooms
    svg.addEventListener("wheel", (ev) => {
      if (!(ev.ctrlKey || ev.metaKey || document.body.classList.contains("full-window"))) { showWheelHint(); return; }
      ev.preventDefault();
      zoom(svg, ev.deltaY > 0 ? 1.15 : 1 / 1.15, toGraph(svg, ev));
    }, { passive: false });
    let drag = null;
    svg.addEventListener("pointerdown", (ev) => {
      if (ev.target.closest(".node") || ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, box: boxes.get(svg), scale: svg.getScreenCTM().a };
      svg.classList.add("dragging");
      svg.setPointerCapture(ev.pointerId);
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!drag) return;
      const [x, y, w, h] = drag.box;
      state.autoFit = false;
      setBox(svg, [x - (ev.clientX - drag.x) / drag.scale, y - (ev.clientY - drag.y) / drag.scale, w, h]);
    });
    const stop = () => { drag = null; svg.classList.remove("dragging"); };
    svg.addEventListener("pointerup", stop);
    svg.addEventListener("pointercancel", stop);
    svg.addEventListener("click", (ev) => {
      const node = ev.target.closest(".node");
      if (node) { openPanel(node.dataset.id, { push: true }); node.focus({ preventScroll: true }); revealPanel(); }
    });
    svg.addEventListener("keydown", onGraphKey);
    svg.addEventListener("focusin", (ev) => {
      const node = ev.target.closest(".node");
      if (node) { setTabStop(svg, node); keepInSight(svg, node); showTip(node); }
    });
    svg.addEventListener("focusout", hideTip);
    svg.addEventListener("mouseover", (ev) => {
      const node = ev.target.closest(".node");
      if (node && node !== tipNode && !drag) showTip(node);
    });
    svg.addEventListener("mouseout", (ev) => {
      const node = ev.target.closest(".node");
      if (node && !node.contains(ev.relatedTarget)) hideTip();
    });
  });
  new ResizeObserver(() => { if (state.autoFit) fit(currentSvg()); }).observe(canvas);

  document.getElementById("zoom-in").onclick = () => zoom(currentSvg(), 1 / 1.4, zoomAnchor(currentSvg()));
  document.getElementById("zoom-out").onclick = () => zoom(currentSvg(), 1.4, zoomAnchor(currentSvg()));
  document.getElementById("fit").onclick = () => fit(currentSvg());

  // ---------------------------------------------------------------- keyboard in the graph: one tab stop, arrows
  function setTabStop(svg, node) {
    svg.querySelectorAll('.node[tabindex="0"]').forEach((n) => { if (n !== node) n.setAttribute("tabindex", "-1"); });
    if (node) node.setAttribute("tabindex", "0");
  }
  function resetTabStop(svg) {
    const current = svg.querySelector('.node[tabindex="0"]:not(.hidden)');
    if (current) return;
    const sel = state.selected && nodeIn(svg, state.selected);
    // else the first claim of the first column, top left
    const first = shownNodes(svg).reduce((best, n) => {
      if (!best) return n;
      const [x, y] = corner(n), [bx, by] = corner(best);
      return x < bx - 1 || (Math.abs(x - bx) <= 1 && y < by) ? n : best;
    }, null);
    setTabStop(svg, sel && !sel.classList.contains("hidden") ? sel : first);
  }
  // the shown node nearest to ``from`` in a direction: along an edge first (left: a premise, right: a
  // conclusion), else by position
  function neighbour(svg, from, key) {
    const [fx, fy] = centre(svg, from), [nw] = nodeSize(svg);
    const linked = key === "ArrowLeft" ? claimOf(from.dataset.id).premises : key === "ArrowRight" ? claimOf(from.dataset.id).conclusions : [];
    let candidates = linked.map((id) => nodeIn(svg, id)).filter((n) => n && !n.classList.contains("hidden"));
    if (!candidates.length) {
      candidates = shownNodes(svg).filter((n) => {
        const [x, y] = centre(svg, n);
        return key === "ArrowLeft" ? x < fx - nw / 2 : key === "ArrowRight" ? x > fx + nw / 2
          : key === "ArrowUp" ? y < fy - 1 && Math.abs(x - fx) < nw : y > fy + 1 && Math.abs(x - fx) < nw;
      });
    }
    let best = null, bestD = Infinity;
    for (const n of candidates) {
      const [x, y] = centre(svg, n), d = Math.hypot((x - fx) / 2, y - fy);
      if (d < bestD) { best = n; bestD = d; }
    }
    return best;
  }
  function onGraphKey(ev) {
    const svg = ev.currentTarget, node = ev.target.closest(".node");
    if (!node) return;
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      openPanel(node.dataset.id, { push: true, centre: true });
    } else if (ev.key.startsWith("Arrow")) {
      ev.preventDefault();
      const next = neighbour(svg, node, ev.key);
      if (next) next.focus({ preventScroll: true });
    } else if (ev.key === "+" || ev.key === "=") {
      zoom(svg, 1 / 1.4, centre(svg, node));
    } else if (ev.key === "-") {
      zoom(svg, 1.4, centre(svg, node));
    } else if (ev.key === "0") {
      fit(svg);
    }
  }

  // ---------------------------------------------------------------- views
  function showView(name) {
    views().forEach((v) => { v.hidden = v.dataset.view !== name; });
    viewSelect.value = name;
    applyFilters(true);
  }
  viewSelect.onchange = () => showView(viewSelect.value);
  document.querySelectorAll("a.view-link").forEach((a) => a.addEventListener("click", (ev) => {
    ev.preventDefault();
    showView(a.dataset.view);
    graphSection.scrollIntoView({ block: "start" });
  }));
  const allEdges = document.getElementById("all-edges");
  allEdges.onchange = () => canvas.classList.toggle("show-implied", allEdges.checked);

  // ---------------------------------------------------------------- search, filters and focus decide what is shown
  function filterValues() {
    const out = {};
    document.querySelectorAll("#filters fieldset").forEach((fs) => {
      out[fs.dataset.filter] = new Set(Array.from(fs.querySelectorAll("input:checked")).map((i) => i.value));
    });
    return out;
  }
  const queryWords = () => searchBox.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  function matchesSearch(id, words) {
    const text = claimOf(id).search || id.toLowerCase();
    return words.every((w) => text.includes(w));
  }
  function applyFilters(refit) {
    const filters = filterValues(), words = queryWords(), svg = currentSvg();
    let shown = 0, total = 0;
    const visible = new Set();
    svg.querySelectorAll(".node").forEach((node) => {
      const d = node.dataset;
      const ok = Object.entries(filters).every(([key, allowed]) => allowed.has(d[key]))
        && matchesSearch(d.id, words) && (!state.focusSet || state.focusSet.has(d.id));
      node.classList.toggle("hidden", !ok);
      node.classList.toggle("match", ok && words.length > 0);
      total += 1;
      if (ok) { shown += 1; visible.add(d.id); }
    });
    svg.querySelectorAll(".edge").forEach((edge) => {
      edge.classList.toggle("hidden", !(visible.has(edge.dataset.from) && visible.has(edge.dataset.to)));
    });
    shownCount.textContent = `${shown} of ${total} claims shown`;
    describeView(svg, words);
    resetTabStop(svg);
    if (refit) fit(svg);
  }
  // what a per-document view leaves out: claims of other documents linked to the ones shown
  function describeView(svg, words) {
    const view = svg.dataset.view, parts = [];
    viewNote.textContent = "";
    if (view !== "all") {
      const here = new Set(Array.from(svg.querySelectorAll(".node")).map((n) => n.dataset.id));
      if (state.focusSet) {
        const away = Array.from(state.focusSet).filter((id) => !here.has(id));
        if (away.length) parts.push([`${away.length} of the claims linked to ${state.focus} are in other documents and not drawn here: `, away]);
      } else {
        let n = 0;
        here.forEach((id) => { for (const p of claimOf(id).premises) if (!here.has(p)) n += 1; for (const c of claimOf(id).conclusions) if (!here.has(c)) n += 1; });
        if (n) parts.push([`This view draws ${view}'s claims only: ${n} dependencies with claims of other documents are not drawn.`, []]);
      }
      if (words.length) {
        const elsewhere = Object.keys(data.claims).filter((id) => !here.has(id) && matchesSearch(id, words));
        if (elsewhere.length) parts.push([` ${elsewhere.length} matches in other documents: `, elsewhere]);
      }
    }
    viewNote.hidden = parts.length === 0;
    for (const [text, ids] of parts) {
      viewNote.append(text);
      ids.slice(0, 40).forEach((id, i) => {
        const a = document.createElement("a");
        a.href = `#claim=${encodeURIComponent(id)}`; a.className = "claim-link"; a.dataset.id = id; a.textContent = id;
        viewNote.append(a, i + 1 < Math.min(ids.length, 40) ? ", " : ids.length > 40 ? " …" : "");
      });
    }
    if (parts.length) {
      const all = document.createElement("button");
      all.type = "button"; all.textContent = "show them in the all-documents view";
      all.onclick = () => { showView("all"); if (state.selected) centreOn(currentSvg(), nodeIn(currentSvg(), state.selected)); };
      viewNote.append(" ", all);
    }
  }
  searchBox.addEventListener("input", () => { state.matchIndex = -1; applyFilters(true); });
  searchBox.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    const words = queryWords(), svg = currentSvg();
    if (!words.length) return;
    const q = words.join(" ");
    const rank = (id) => (id.toLowerCase() === q ? 0 : id.toLowerCase().startsWith(q) ? 1 : 2);
    const found = shownNodes(svg).map((n) => n.dataset.id).sort((a, b) => rank(a) - rank(b));
    if (!found.length) { shownCount.textContent = "no match in this view"; return; }
    state.matchIndex = (state.matchIndex + (ev.shiftKey ? -1 : 1) + found.length) % found.length;
    openPanel(found[state.matchIndex], { push: true, centre: true });
    shownCount.textContent = `match ${state.matchIndex + 1} of ${found.length}: ${found[state.matchIndex]}`;
  });
  document.querySelectorAll("#filters input").forEach((i) => i.addEventListener("change", () => applyFilters(true)));

  function closure(start, key) {
    const seen = new Set([start]), stack = [start];
    while (stack.length) {
      for (const next of claimOf(stack.pop())[key] || []) {
        if (!seen.has(next)) { seen.add(next); stack.push(next); }
      }
    }
    return seen;
  }
  function focusOn(id) {
    state.focus = id;
    state.focusSet = new Set([...closure(id, "premises"), ...closure(id, "conclusions")]);
    clearFocusButton.hidden = false;
    clearFocusButton.textContent = `focused on ${id}: show the whole graph again`;
    applyFilters(true);
  }
  function clearFocus() {
    state.focus = null; state.focusSet = null; clearFocusButton.hidden = true;
    applyFilters(true);
  }
  clearFocusButton.onclick = clearFocus;

  // ---------------------------------------------------------------- the claim panel, the address bar, history
  // Each claim's panel waits in a <template> (inert: a page holding all of them in its document is
  // many times slower to print and to lay out) and is put in the panel when opened.
  const figureStore = JSON.parse(document.getElementById("figure-store").textContent);
  const templateOf = (id) => document.querySelector(`template.claim-template[data-id="${esc(id)}"]`);
  function panelOf(id) {
    const open = panel.querySelector(`.claim-panel[data-id="${esc(id)}"]`);
    if (open) return open;
    const template = templateOf(id);
    if (!template) return null;
    const article = template.content.firstElementChild.cloneNode(true);
    // a claim's figures: each image is in the page once (a report-wide figure is shown with many claims)
    article.querySelectorAll("img[data-figure]").forEach((img) => { img.src = figureStore[img.dataset.figure] || ""; });
    panel.append(article);
    return article;
  }
  function markSelected(id) {
    document.querySelectorAll(".node.selected").forEach((n) => n.classList.remove("selected"));
    document.querySelectorAll(".edge.near").forEach((e) => e.classList.remove("near"));
    if (!id) return;
    canvas.querySelectorAll(`.node[data-id="${esc(id)}"]`).forEach((n) => n.classList.add("selected"));
    canvas.querySelectorAll(`.edge[data-from="${esc(id)}"], .edge[data-to="${esc(id)}"]`).forEach((e) => e.classList.add("near"));
  }
  function openPanel(id, { push = false, centre: centreNode = false } = {}) {
    const article = panelOf(id);
    if (!article) return;
    panel.querySelectorAll(".claim-panel").forEach((p) => { if (p !== article) p.remove(); });
    document.getElementById("panel-empty").hidden = true;
    state.selected = id;
    markSelected(id);
    panel.scrollTop = 0;
    fitFormulas(article);
    // focus mode follows the reader: a claim outside the focused family becomes the new focus
    if (state.focusSet && !state.focusSet.has(id)) focusOn(id);
    let svg = currentSvg(), node = nodeIn(svg, id);
    if (!node) { showView("all"); svg = currentSvg(); node = nodeIn(svg, id); }
    if (node && !node.classList.contains("hidden")) {
      setTabStop(svg, node);
      if (centreNode) centreOn(svg, node);
      else keepInSight(svg, node);
    }
    const hash = `#claim=${encodeURIComponent(id)}`;
    if (push && location.hash !== hash) history.pushState({ claim: id }, "", hash);
  }
  // a formula piece that cannot wrap (a matrix, cases) and is wider than the panel is set smaller
  function fitFormulas(article) {
    const statement = article.querySelector(".statement");
    if (!statement) return;
    statement.querySelectorAll("math").forEach((m) => {
      m.style.fontSize = "";
      const room = statement.clientWidth, width = m.getBoundingClientRect().width;
      if (room > 0 && width > room) m.style.fontSize = `${Math.max(0.6, room / width * 0.98).toFixed(3)}em`;
    });
  }
  function closePanel({ push = false } = {}) {
    const id = state.selected;
    if (!id) return;
    panel.querySelectorAll(".claim-panel").forEach((p) => p.remove());
    document.getElementById("panel-empty").hidden = false;
    state.selected = null;
    markSelected(null);
    if (push && location.hash) history.pushState(null, "", location.pathname + location.search);
    const node = nodeIn(currentSvg(), id);
    if (node && !node.classList.contains("hidden")) node.focus({ preventScroll: true });
  }
  // on a narrow window the panel sits under the graph: bring it into sight when a node is clicked
  function revealPanel() {
    if (narrow.matches) panel.scrollIntoView({ block: "start", behavior: "smooth" });
  }
  function claimFromHash() {
    const m = location.hash.match(/^#claim=(.+)$/);
    return m ? decodeURIComponent(m[1]) : null;
  }
  // Back and Forward, and a hand-edited address: the panel follows the address
  function syncWithAddress() {
    const id = claimFromHash();
    if (id) { if (id !== state.selected) openPanel(id, { centre: true }); }
    else if (!location.hash) closePanel();
  }
  window.addEventListener("popstate", syncWithAddress);
  window.addEventListener("hashchange", syncWithAddress);

  document.addEventListener("click", (ev) => {
    const link = ev.target.closest("a.claim-link");
    if (link && ev.button === 0 && !(ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey)) {
      ev.preventDefault();
      openPanel(link.dataset.id, { push: true, centre: true });
      if (!graphSection.contains(link) || narrow.matches) graphSection.scrollIntoView({ block: "start" });
    }
    const focus = ev.target.closest("button.focus");
    if (focus) focusOn(focus.dataset.id);
    if (ev.target.closest("#panel .close")) closePanel({ push: true });
  });

  // ---------------------------------------------------------------- Escape, the full window
  function setFullWindow(on) {
    document.body.classList.toggle("full-window", on);
    fullWindowButton.setAttribute("aria-pressed", String(on));
    fullWindowButton.textContent = on ? "leave the full window" : "full window";
    fit(currentSvg());
  }
  fullWindowButton.onclick = () => setFullWindow(!document.body.classList.contains("full-window"));
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape" || ev.defaultPrevented) return;
    if (ev.target === searchBox && searchBox.value) return;   // the search box clears itself first
    if (state.selected) { ev.preventDefault(); closePanel({ push: true }); }
    else if (document.body.classList.contains("full-window")) { ev.preventDefault(); setFullWindow(false); }
  });

  // ---------------------------------------------------------------- printing: the open panel whole (a witness,
  // often pages of numbers, stays folded: its summary line says it is there)
  const openedForPrint = [];
  window.addEventListener("beforeprint", () => {
    panel.querySelectorAll(".claim-panel details:not([open]):not(.witness)").forEach((d) => { d.open = true; openedForPrint.push(d); });
  });
  window.addEventListener("afterprint", () => { openedForPrint.splice(0).forEach((d) => { d.open = false; }); });

  // ---------------------------------------------------------------- start
  applyFilters(true);
  const initial = claimFromHash();
  if (initial && templateOf(initial)) {
    graphSection.scrollIntoView({ block: "start" });
    openPanel(initial, { centre: true });
  }
  window.pyverifyReport = {
    openPanel, closePanel, showView, focusOn, clearFocus, fit: () => fit(currentSvg()),
    get selected() { return state.selected; }, get focus() { return state.focus; },
  };
})();
