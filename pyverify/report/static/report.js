// The report page's behaviour: views, zoom and pan, search, filters, the claim panel, focus on one
// claim's ancestors and descendants. Plain DOM code, no library: the page must work from file://.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const canvas = document.getElementById("canvas");
  const searchBox = document.getElementById("search");
  const shownCount = document.getElementById("shown-count");
  const clearFocusButton = document.getElementById("clear-focus");
  let focusSet = null;   // ids shown by the focus view, or null
  let selected = null;

  const views = () => Array.from(canvas.querySelectorAll(".view"));
  const currentView = () => views().find((v) => !v.hidden);
  const currentSvg = () => currentView().querySelector("svg.graph");
  const nodesOf = (root, id) => root.querySelectorAll(`.node[data-id="${CSS.escape(id)}"]`);

  // ---- zoom and pan: each view keeps its own viewBox ----
  const boxes = new Map();
  function fullBox(svg) {
    return [0, 0, Number(svg.dataset.w), Number(svg.dataset.h)];
  }
  function setBox(svg, box) {
    boxes.set(svg, box);
    svg.setAttribute("viewBox", box.map((v) => v.toFixed(1)).join(" "));
  }
  function fit(svg) {
    const [, , w, h] = fullBox(svg);
    const rect = svg.getBoundingClientRect();
    const aspect = rect.width && rect.height ? rect.width / rect.height : 1.5;
    // show the whole width when the graph is tall; never zoom in past 1:1 at fit
    const bw = Math.max(w, Math.min(h, 2000) * aspect), bh = bw / aspect;
    setBox(svg, [0, 0, bw, bh]);
  }
  function zoom(svg, factor, cx, cy) {
    const [x, y, w, h] = boxes.get(svg);
    const px = cx === undefined ? x + w / 2 : cx, py = cy === undefined ? y + h / 2 : cy;
    setBox(svg, [px - (px - x) * factor, py - (py - y) * factor, w * factor, h * factor]);
  }
  function toGraph(svg, ev) {
    const rect = svg.getBoundingClientRect(), [x, y, w, h] = boxes.get(svg);
    return [x + (ev.clientX - rect.left) * w / rect.width, y + (ev.clientY - rect.top) * h / rect.height];
  }
  function centreOn(svg, node) {
    const t = node.transform.baseVal.consolidate();
    if (!t) return;
    // zoom in to where labels are readable (about 1200 drawing units across), never out
    const [, , w0, h0] = boxes.get(svg), w = Math.min(w0, 1200), h = h0 * w / w0;
    setBox(svg, [t.matrix.e + 75 - w / 2, t.matrix.f + 11 - h / 2, w, h]);
  }
  canvas.querySelectorAll("svg.graph").forEach((svg) => {
    // the drawing's own size, before the element is stretched over the canvas
    svg.dataset.w = svg.viewBox.baseVal.width;
    svg.dataset.h = svg.viewBox.baseVal.height;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const [gx, gy] = toGraph(svg, ev);
      zoom(svg, ev.deltaY > 0 ? 1.15 : 1 / 1.15, gx, gy);
    }, { passive: false });
    let drag = null;
    svg.addEventListener("pointerdown", (ev) => {
      if (ev.target.closest(".node")) return;
      drag = { x: ev.clientX, y: ev.clientY, box: boxes.get(svg) };
      svg.classList.add("dragging");
      svg.setPointerCapture(ev.pointerId);
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!drag) return;
      const rect = svg.getBoundingClientRect(), [x, y, w, h] = drag.box;
      setBox(svg, [x - (ev.clientX - drag.x) * w / rect.width, y - (ev.clientY - drag.y) * h / rect.height, w, h]);
    });
    svg.addEventListener("pointerup", () => { drag = null; svg.classList.remove("dragging"); });
    svg.addEventListener("click", (ev) => {
      const node = ev.target.closest(".node");
      if (node) openPanel(node.dataset.id, false);
    });
    svg.addEventListener("keydown", (ev) => {
      const node = ev.target.closest(".node");
      if (node && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); openPanel(node.dataset.id, false); }
    });
  });
  function fitAll() { canvas.querySelectorAll("svg.graph").forEach((svg) => { if (!svg.closest(".view").hidden) fit(svg); }); }
  canvas.querySelectorAll("svg.graph").forEach((svg) => boxes.set(svg, fullBox(svg)));

  document.getElementById("zoom-in").onclick = () => zoom(currentSvg(), 1 / 1.4);
  document.getElementById("zoom-out").onclick = () => zoom(currentSvg(), 1.4);
  document.getElementById("fit").onclick = () => fit(currentSvg());

  // ---- views ----
  const viewSelect = document.getElementById("view-select");
  function showView(name) {
    views().forEach((v) => { v.hidden = v.dataset.view !== name; });
    viewSelect.value = name;
    fit(currentSvg());
    applyFilters();
  }
  viewSelect.onchange = () => showView(viewSelect.value);
  document.querySelectorAll("a.view-link").forEach((a) => a.addEventListener("click", (ev) => {
    ev.preventDefault();
    showView(a.dataset.view);
    document.getElementById("graph-section").scrollIntoView();
  }));

  // ---- edges: reduced by default, all on request ----
  const allEdges = document.getElementById("all-edges");
  allEdges.onchange = () => canvas.classList.toggle("show-implied", allEdges.checked);

  // ---- search, filters and focus decide which nodes are shown ----
  function filterValues() {
    const out = {};
    document.querySelectorAll("#filters fieldset").forEach((fs) => {
      out[fs.dataset.filter] = new Set(Array.from(fs.querySelectorAll("input:checked")).map((i) => i.value));
    });
    return out;
  }
  function matchesSearch(id, query) {
    if (!query) return true;
    const title = (data.claims[id] && data.claims[id].title) || "";
    return id.toLowerCase().includes(query) || title.toLowerCase().includes(query);
  }
  function applyFilters() {
    const filters = filterValues(), query = searchBox.value.trim().toLowerCase();
    const svg = currentSvg();
    let shown = 0, total = 0;
    const visible = new Set();
    svg.querySelectorAll(".node").forEach((node) => {
      const d = node.dataset;
      const ok = Object.entries(filters).every(([key, allowed]) => allowed.has(d[key]))
        && matchesSearch(d.id, query) && (!focusSet || focusSet.has(d.id));
      node.classList.toggle("hidden", !ok);
      node.classList.toggle("match", ok && query.length > 0);
      total += 1;
      if (ok) { shown += 1; visible.add(d.id); }
    });
    svg.querySelectorAll(".edge").forEach((edge) => {
      edge.classList.toggle("hidden", !(visible.has(edge.dataset.from) && visible.has(edge.dataset.to)));
    });
    shownCount.textContent = `${shown} of ${total} claims shown`;
  }
  searchBox.addEventListener("input", applyFilters);
  document.querySelectorAll("#filters input").forEach((i) => i.addEventListener("change", applyFilters));

  function closure(start, key) {
    const seen = new Set([start]), stack = [start];
    while (stack.length) {
      const id = stack.pop();
      for (const next of (data.claims[id] && data.claims[id][key]) || []) {
        if (!seen.has(next)) { seen.add(next); stack.push(next); }
      }
    }
    return seen;
  }
  function focusOn(id) {
    focusSet = new Set([...closure(id, "premises"), ...closure(id, "conclusions")]);
    clearFocusButton.hidden = false;
    clearFocusButton.textContent = `focused on ${id}: show the whole graph again`;
    applyFilters();
  }
  clearFocusButton.onclick = () => { focusSet = null; clearFocusButton.hidden = true; applyFilters(); };

  // ---- the claim panel ----
  function openPanel(id, centre) {
    const panel = document.querySelector(`.claim-panel[data-id="${CSS.escape(id)}"]`);
    if (!panel) return;
    document.querySelectorAll(".claim-panel").forEach((p) => { p.hidden = p !== panel; });
    document.getElementById("panel-empty").hidden = true;
    document.querySelectorAll(".node.selected").forEach((n) => n.classList.remove("selected"));
    document.querySelectorAll(".edge.near").forEach((e) => e.classList.remove("near"));
    nodesOf(canvas, id).forEach((n) => n.classList.add("selected"));
    canvas.querySelectorAll(`.edge[data-from="${CSS.escape(id)}"], .edge[data-to="${CSS.escape(id)}"]`)
      .forEach((e) => e.classList.add("near"));
    selected = id;
    document.getElementById("panel").scrollTop = 0;
    if (centre) {
      const node = currentSvg().querySelector(`.node[data-id="${CSS.escape(id)}"]`);
      if (node && !node.classList.contains("hidden")) centreOn(currentSvg(), node);
      else if (!node) showView("all");
    }
    if (location.hash !== `#claim=${encodeURIComponent(id)}`) history.replaceState(null, "", `#claim=${encodeURIComponent(id)}`);
  }
  document.addEventListener("click", (ev) => {
    const link = ev.target.closest("a.claim-link");
    if (link) {
      ev.preventDefault();
      openPanel(link.dataset.id, true);
      document.getElementById("graph-section").scrollIntoView({ block: "start" });
    }
    const focus = ev.target.closest("button.focus");
    if (focus) focusOn(focus.dataset.id);
  });

  fitAll();
  applyFilters();
  const m = location.hash.match(/^#claim=(.+)$/);
  if (m) openPanel(decodeURIComponent(m[1]), true);
  window.pyverifyReport = { openPanel, showView, focusOn, get selected() { return selected; } };
})();
