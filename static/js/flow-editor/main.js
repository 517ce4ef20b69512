// The flow editor: a canvas (JointJS) over the draft's JSON graph, an outline list for
// keyboard and screen-reader use, a properties panel, and live validation.
//
// One source of truth: `graph`, the draft's JSON as the server reads it. Every edit
// changes `graph`, redraws what it touches, and schedules a save (300 ms after the last
// change); the server answers with the new revision and the violations, which outline
// the offending states and transitions. User text (labels, keys, messages) only ever
// reaches the page as text: SVG text nodes, textContent, title elements — never HTML.
//
// The pieces without state live beside it: api.js (the JSON API), dom.js (building
// elements), geometry.js (fanning arrows out, auto-layout, a free spot), history.js
// (undo and redo).
import { errorMessage, makeApi } from "./api.js";
import { el, fmt } from "./dom.js";
import { autoPositions, freeSpot, spreadVertices } from "./geometry.js";
import { EditHistory } from "./history.js";

(function () {
  var root = document.getElementById("flow-editor");
  if (!root || !window.joint || !window.dagre) return;
  var setup = JSON.parse(document.getElementById("editor-setup").textContent);
  var T = setup.text;
  var LOCALES = setup.locales;
  // A state's box: one size for every drawing of a graph (portal/domain/layout.py).
  var BOX = setup.box;
  var STATE_W = BOX.width;
  var STATE_H = BOX.height;
  var SAVE_DELAY = 300;

  var doc = null; // the last answer from the server: revision, violations, …
  var graph = null; // the working graph (JSON), what is saved
  var selected = null; // {type: "state", key} | {type: "transition", index}
  var viewing = null; // a version number when showing one read-only
  var saveTimer = null;
  var saving = false;
  var dirty = false;
  var conflict = false;
  var retryDelay = 1000;
  var refusal = null; // the last save's refusal by path ({path, code, message}), shown inline
  var roundTrips = [];
  var api = makeApi(setup.api, { offline: T.offline, unexpected: T.unexpected });

  // --- small helpers --------------------------------------------------------------

  function label(item) {
    var labels = item.labels || {};
    return labels[document.documentElement.lang] || labels.en || item.key;
  }

  function stateByKey(key) {
    return graph.states.find(function (s) { return s.key === key; });
  }

  // --- status line, alert, publish button ----------------------------------------

  var statusLine = document.getElementById("save-status");
  var alertBox = document.getElementById("editor-alert");
  var alertText = document.getElementById("editor-alert-text");
  var reloadButton = document.getElementById("editor-reload");
  var publishButton = document.getElementById("publish");
  var publishReason = document.getElementById("publish-reason");

  function say(text) { statusLine.textContent = text; }

  // `info`: a notice (a version on show), not a problem.
  function alarm(text, offerReload, info) {
    alertText.parentNode.className = info ? "flash" : "flash flash-error";
    alertText.textContent = text;
    reloadButton.hidden = !offerReload;
    alertBox.hidden = !text;
  }

  function refreshPublish() {
    var reason;
    if (viewing) reason = fmt(T.viewing, { version: viewing });
    else if (dirty || saving) reason = T.saving;
    else if (refusal) reason = fmt(T.refused, { message: refusal.message });
    else if (!doc || !doc.saved) reason = T.publish_unsaved;
    else if (doc.errors) reason = fmt(T.publish_blocked, { num: doc.errors });
    else reason = T.publish_ready;
    publishButton.disabled = Boolean(viewing || !doc || !doc.saved || dirty || saving || refusal || doc.errors || conflict);
    publishReason.textContent = reason;
    refreshHistory();
    // A version on show is read-only: nothing on the toolbar may change the draft.
    ["add-state", "auto-layout", "discard", "import-file"].forEach(function (id) {
      document.getElementById(id).disabled = Boolean(viewing);
    });
    document.querySelector('label[for="import-file"]').setAttribute("aria-disabled", viewing ? "true" : "false");
  }

  // --- the canvas ---------------------------------------------------------------

  // A state: a box, its label, and the handle arrows are drawn from. One element with
  // its own markup (JointJS's ports API would lay out a port per state on every render).
  var StateShape = joint.dia.Element.define("countersign.State", {
    size: { width: STATE_W, height: STATE_H },
    attrs: {
      body: { width: "calc(w)", height: "calc(h)", strokeWidth: 1.5 },
      label: { x: "calc(w / 2)", y: "calc(h / 2 + 4)", textAnchor: "middle", fontSize: 13, fill: "#111827" },
      handle: { cx: "calc(w)", cy: "calc(h / 2)", r: 7, magnet: true, fill: "#ffffff", stroke: "#4338ca", strokeWidth: 2, cursor: "crosshair" },
    },
  }, {
    markup: [
      { tagName: "rect", selector: "body" },
      { tagName: "text", selector: "label" },
      { tagName: "circle", selector: "handle" },
    ],
  });
  var shapes = Object.assign({}, joint.shapes, { countersign: { State: StateShape } });

  var cells = new joint.dia.Graph({}, { cellNamespace: shapes });
  // JointJS would inject its one CSS rule as a <style> element, which the page's
  // Content-Security-Policy refuses; the rule lives in portal.css instead.
  var EditorPaper = joint.dia.Paper.extend({ stylesheet: "" });
  var paper = new EditorPaper({
    el: document.getElementById("paper"),
    model: cells,
    width: "100%",
    height: 620,
    gridSize: 10,
    drawGrid: { name: "dot", args: { color: "#d1d5db" } },
    background: { color: "#fbfbfd" },
    async: false,
    sorting: joint.dia.Paper.sorting.APPROX, // no full re-sort of 320 views per render
    cellViewNamespace: shapes,
    linkPinning: false, // a transition dropped on empty canvas is no transition
    snapLinks: { radius: 30 },
    markAvailable: true,
    // The model's box, not the drawn shape: no DOM measuring per arrow end.
    defaultConnectionPoint: { name: "bbox" },
    defaultLink: function () { return transitionCell({ key: "", from: "", to: "" }, -1); },
    // Only the ports' handles are magnets: dragging one draws a transition.
    validateMagnet: function () {
      return !viewing;
    },
    validateConnection: function (sourceView, sourceMagnet, targetView) {
      return Boolean(targetView && targetView.model.isElement());
    },
    interactive: function (view) {
      if (viewing) return false;
      return view.model.isElement() ? { elementMove: true } : { linkMove: false, labelMove: false, vertexAdd: false, vertexMove: true, arrowheadMove: false };
    },
  });

  var STYLE = {
    draft: { fill: "#eef2ff", stroke: "#4338ca" },
    accrual: { fill: "#ecfdf5", stroke: "#047857" },
    payout: { fill: "#ecfdf5", stroke: "#047857" },
    rejected: { fill: "#fef2f2", stroke: "#9ca3af" },
    cancelled: { fill: "#f3f4f6", stroke: "#9ca3af" },
  };

  function stateCell(s) {
    var style = STYLE[s.role] || { fill: "#ffffff", stroke: "#4b5563" };
    var round = s.role === "draft" ? 23 : 6;
    return new StateShape({
      id: "state:" + s.key,
      z: 2, // above the arrows: a handle is never hidden under an arrow that starts at it
      position: { x: s.x || 0, y: s.y || 0 },
      attrs: {
        root: { "data-key": s.key, "data-role": s.role, "data-terminal": s.terminal ? "true" : "false" },
        body: { fill: style.fill, stroke: style.stroke, strokeWidth: s.terminal ? 3 : 1.5, rx: round, ry: round },
        // Shortened here rather than with JointJS's textWrap, which measures the text
        // in the browser for every state (the cost that made large flows slow to draw).
        label: { text: shorten(label(s), 22) },
      },
    });
  }

  function shorten(text, most) {
    return text.length > most ? text.slice(0, most - 1) + "…" : text;
  }

  // The label's box is sized from its length, not measured: measuring every label's
  // text in the browser is what makes a 256-arrow flow slow to draw.
  function arrowLabel(text) {
    var width = Math.max(16, text.length * 6.6 + 10);
    return {
      markup: [{ tagName: "rect", selector: "box" }, { tagName: "text", selector: "text" }],
      attrs: {
        text: { text: text, fill: "#1f2937", fontSize: 11, textAnchor: "middle", y: 4 },
        box: { x: -width / 2, y: -9, width: width, height: 18, fill: "#ffffff", stroke: "#e5e7eb", rx: 3 },
      },
      position: { distance: 0.5 },
    };
  }

  function transitionCell(t, index) {
    return new joint.shapes.standard.Link({
      id: index >= 0 ? "transition:" + index : undefined,
      z: 1,
      source: { id: "state:" + t.from },
      target: { id: "state:" + t.to },
      attrs: {
        root: { "data-index": index, "data-key": t.key, "data-from": t.from, "data-to": t.to },
        line: { stroke: "#4b5563", strokeWidth: 1.5, targetMarker: { type: "path", d: "M 10 -5 0 0 10 5 z" } },
      },
      labels: t.key ? [arrowLabel(shorten(label(t), 18))] : [],
    });
  }

  function respread(stateKey) {
    var found = spreadVertices(graph, BOX, stateKey);
    Object.keys(found).forEach(function (index) {
      var link = cells.getCell("transition:" + index);
      if (link) link.vertices(found[index]);
    });
  }

  function draw() {
    graph.states = graph.states || [];
    graph.transitions = graph.transitions || [];
    graph.grants = graph.grants || [];
    var spread = spreadVertices(graph, BOX);
    var list = graph.states.map(stateCell);
    graph.transitions.forEach(function (t, i) {
      var link = transitionCell(t, i);
      var drawn = t.vertices && t.vertices.length
        ? t.vertices.map(function (v) { return { x: v[0], y: v[1] }; })
        : spread[i];
      if (drawn && drawn.length) link.set("vertices", drawn);
      list.push(link);
    });
    // One render for the whole graph (a 64-state flow has 320 cells).
    paper.freeze();
    cells.resetCells(list);
    paper.unfreeze();
    markViolations();
    markSelection();
    drawOutline();
  }

  function viewOf(ref) {
    if (!ref) return null;
    var cell = ref.type === "state" ? cells.getCell("state:" + ref.key) : cells.getCell("transition:" + ref.index);
    return cell ? paper.findViewByModel(cell) : null;
  }

  function markSelection() {
    joint.highlighters.stroke.removeAll(paper, "selection");
    var view = viewOf(selected);
    if (view) {
      joint.highlighters.stroke.add(view, view.model.isElement() ? "body" : "line", "selection", {
        padding: 6,
        attrs: { stroke: "#2563eb", "stroke-width": 2, "stroke-dasharray": "4 3" },
      });
    }
    document.getElementById("delete-selected").disabled = !selected || Boolean(viewing);
  }

  // --- violations -----------------------------------------------------------------

  function violationTarget(v) {
    if (v.ref.state !== undefined) return { type: "state", key: v.ref.state };
    if (v.ref.transition !== undefined) return { type: "transition", index: v.ref.transition };
    if (v.ref.grant !== undefined) {
      var grant = graph.grants[v.ref.grant];
      if (grant && grant.state) return { type: "state", key: grant.state };
    }
    // The flow's fields and labels are edited with nothing selected.
    if (v.ref.field !== undefined || /^(labels|fields)\b/.test(v.path || "")) return { type: "flow" };
    return null;
  }

  function markViolations() {
    joint.highlighters.stroke.removeAll(paper, "violation");
    var worst = {};
    var notes = {};
    (doc && !viewing ? doc.violations : []).forEach(function (v) {
      var target = violationTarget(v);
      if (!target || target.type === "flow") return;
      var id = target.type === "state" ? "state:" + target.key : "transition:" + target.index;
      if (worst[id] !== "error") worst[id] = v.severity;
      (notes[id] = notes[id] || []).push(v.message);
    });
    // No freeze here: this also runs when a save answers, perhaps in the middle of a
    // drag, and a frozen paper would drop the arrow being drawn.
    cells.getCells().forEach(function (cell) {
      if (worst[cell.id]) {
        cell.attr({ root: { "data-violation": worst[cell.id], title: notes[cell.id].join("\n") } });
      } else if (cell.attr("root/data-violation")) {
        // null removes the attribute from the drawn element (a removed key would not);
        // the title only empties (null would empty the whole element).
        cell.attr({ root: { "data-violation": null, title: "" } });
      }
    });
    Object.keys(worst).forEach(function (id) {
      var cell = cells.getCell(id);
      if (!cell) return;
      // One highlighter per cell (its id is per cell: two with one id replace each other).
      joint.highlighters.stroke.add(paper.findViewByModel(cell), cell.isElement() ? "body" : "line", "violation", {
        padding: 4,
        layer: "back",
        attrs: {
          stroke: worst[id] === "error" ? "#dc2626" : "#d97706",
          "stroke-width": 4,
          "stroke-opacity": 0.85,
        },
      });
    });
    drawProblems();
  }

  function drawProblems() {
    var list = document.getElementById("problems");
    list.replaceChildren();
    var violations = doc && !viewing ? doc.violations : [];
    if (!violations.length) {
      list.appendChild(el("li", { class: "muted", text: T.no_problems }));
      return;
    }
    violations.forEach(function (v) {
      var target = violationTarget(v);
      var tag = el("span", { class: "tag " + (v.severity === "error" ? "danger" : "warn"), text: v.severity === "error" ? T.error : T.warning });
      var text = el("span", { text: " " + v.message });
      var item = target
        ? el("button", { type: "button", class: "link-button", "data-code": v.code, onclick: function () { openProblem(target, v.path); } }, [tag, text])
        : el("span", { "data-code": v.code }, [tag, text]);
      list.appendChild(el("li", { class: "problem problem-" + v.severity }, [item]));
    });
  }

  // A problem in the list opens its state or transition and focuses the input it is
  // about (a grant's floor, a guard), or the panel's first input.
  function openProblem(target, path) {
    select(target.type === "flow" ? null : target, target.type !== "flow");
    var place = path ? placeFor(path) : null;
    if (place && /^(INPUT|SELECT)$/.test(place.tagName)) place.focus();
  }

  // --- outline (keyboard and screen readers) ---------------------------------------

  var outlineFilter = document.getElementById("outline-filter");

  // The outline shows what matches the filter (a state by its label or key, an action by
  // its words): a state stays when any of its actions matches, with just those actions.
  function drawOutline() {
    var outline = document.getElementById("outline");
    var focusedKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.outline : null;
    var wanted = outlineFilter.value.trim().toLowerCase();
    function matches(text) { return !wanted || text.toLowerCase().indexOf(wanted) >= 0; }
    var shown = 0;
    outline.replaceChildren();
    graph.states.forEach(function (s) {
      var exits = el("ul", {});
      var stateText = label(s) + " (" + s.key + ")";
      var stateMatches = matches(stateText);
      exitsOf(s.key).forEach(function (i) {
        var t = graph.transitions[i];
        var to = stateByKey(t.to);
        var text = fmt(T.from_to, { from: label(t), to: to ? label(to) : t.to });
        if (!stateMatches && !matches(text + " " + t.key)) return;
        exits.appendChild(el("li", {}, [
          el("button", {
            type: "button",
            class: "outline-item",
            "data-outline": "transition:" + i,
            "aria-pressed": selected && selected.type === "transition" && selected.index === i ? "true" : "false",
            text: text,
          }),
        ]));
      });
      if (!stateMatches && !exits.children.length) return;
      shown += 1;
      outline.appendChild(el("li", {}, [
        el("button", {
          type: "button",
          class: "outline-item outline-state",
          "data-outline": "state:" + s.key,
          "aria-pressed": selected && selected.type === "state" && selected.key === s.key ? "true" : "false",
          text: stateText,
        }),
        exits,
      ]));
    });
    document.getElementById("outline-count").textContent = wanted
      ? fmt(T.outline_shown, { shown: shown, all: graph.states.length })
      : "";
    if (focusedKey) {
      var again = outline.querySelector('[data-outline="' + CSS.escape(focusedKey) + '"]');
      if (again) again.focus();
    }
  }

  outlineFilter.addEventListener("input", drawOutline);

  // A state's exits as a document's page offers them: by `order`, ties in drawing order.
  function exitsOf(key) {
    var found = [];
    graph.transitions.forEach(function (t, i) { if (t.from === key) found.push(i); });
    return found.sort(function (a, b) {
      return (graph.transitions[a].order || 0) - (graph.transitions[b].order || 0) || a - b;
    });
  }

  // Offer an action earlier (-1) or later (+1) among its state's exits; the exits are
  // numbered 1… afresh so the order is explicit in the graph.
  function moveExit(index, delta) {
    var exits = exitsOf(graph.transitions[index].from);
    var at = exits.indexOf(index), to = at + delta;
    if (viewing || to < 0 || to >= exits.length) return;
    exits.splice(at, 1);
    exits.splice(to, 0, index);
    exits.forEach(function (i, n) { graph.transitions[i].order = n + 1; });
    drawOutline();
    drawProperties();
    changed();
  }

  function refFromOutline(value) {
    if (value.indexOf("state:") === 0) return { type: "state", key: value.slice(6) };
    return { type: "transition", index: Number(value.slice(11)) };
  }

  document.getElementById("outline").addEventListener("click", function (event) {
    var button = event.target.closest("[data-outline]");
    if (button) select(refFromOutline(button.dataset.outline), false);
  });

  document.getElementById("outline").addEventListener("keydown", function (event) {
    var button = event.target.closest("[data-outline]");
    if (!button || viewing) return;
    var ref = refFromOutline(button.dataset.outline);
    var moves = { ArrowLeft: [-10, 0], ArrowRight: [10, 0], ArrowUp: [0, -10], ArrowDown: [0, 10] };
    if (event.key === "Delete") {
      event.preventDefault();
      select(ref, false);
      removeSelected();
    } else if (event.key === "Enter") {
      event.preventDefault();
      select(ref, true);
    } else if (event.key === "F2") {
      event.preventDefault();
      renameInline(ref);
    } else if (event.altKey && ref.type === "transition" && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
      event.preventDefault();
      moveExit(ref.index, event.key === "ArrowUp" ? -1 : 1);
    } else if (moves[event.key] && ref.type === "state") {
      event.preventDefault();
      var s = stateByKey(ref.key);
      s.x = Math.max(0, (s.x || 0) + moves[event.key][0]);
      s.y = Math.max(0, (s.y || 0) + moves[event.key][1]);
      cells.getCell("state:" + s.key).position(s.x, s.y);
      moved = false;
      respread(s.key);
      changed();
    }
  });

  // --- selection and the properties panel ------------------------------------------

  function select(ref, focusPanel) {
    selected = ref;
    markSelection();
    drawOutline();
    drawProperties();
    if (focusPanel) {
      // A state opens on its label (renaming is the common edit), a transition on its key.
      var first = document.querySelector('#properties [data-locale="en"]') ||
        document.querySelector("#properties input, #properties select");
      if (first) first.focus();
    }
  }

  function field(labelText, input) {
    var id = "prop-" + Math.random().toString(36).slice(2, 9);
    input.id = id;
    return el("div", { class: "field" }, [el("label", { for: id, text: labelText }), input]);
  }

  function textInput(value, onValue, attrs) {
    var input = el("input", Object.assign({ type: "text", value: value || "" }, attrs || {}));
    input.readOnly = Boolean(viewing);
    input.addEventListener("input", function () { onValue(input.value); });
    return input;
  }

  function selectInput(options, value, onValue, allowEmpty, attrs) {
    var input = el("select", attrs || {});
    input.disabled = Boolean(viewing);
    if (allowEmpty) input.appendChild(el("option", { value: "", text: T.none }));
    options.forEach(function (pair) {
      var option = el("option", { value: pair[0], text: pair[1] });
      option.selected = String(pair[0]) === String(value === undefined || value === null ? "" : value);
      input.appendChild(option);
    });
    input.addEventListener("change", function () { onValue(input.value); });
    return input;
  }

  function checkbox(labelText, checked, onValue, attrs) {
    var input = el("input", Object.assign({ type: "checkbox" }, attrs || {}));
    input.checked = Boolean(checked);
    input.disabled = Boolean(viewing);
    input.addEventListener("change", function () { onValue(input.checked); });
    var id = "prop-" + Math.random().toString(36).slice(2, 9);
    input.id = id;
    return el("div", { class: "field checkbox" }, [input, el("label", { for: id, text: labelText })]);
  }

  // `base`: the item's path in the graph ("states[2]", "" for the flow), which the
  // server's violations name.
  function labelFields(item, base, redraw) {
    return LOCALES.map(function (locale) {
      return field(fmt(T.label_in, { locale: locale }), textInput((item.labels || {})[locale], function (value) {
        item.labels = item.labels || {};
        if (value) item.labels[locale] = value;
        else delete item.labels[locale];
        redraw();
        changed();
      }, { "data-locale": locale, "data-path": (base ? base + "." : "") + "labels." + locale }));
    });
  }

  function renameState(from, to) {
    graph.transitions.forEach(function (t) {
      if (t.from === from) t.from = to;
      if (t.to === from) t.to = to;
    });
    graph.grants.forEach(function (g) { if (g.state === from) g.state = to; });
  }

  // The panel is drawn afresh on every structural edit; focus that was in it comes back
  // to the same input (by its path in the graph) or button (by its test id), or to the
  // nearest one still there, never to the page's top.
  function drawProperties() {
    var panel = document.getElementById("properties");
    var had = panel.contains(document.activeElement) ? document.activeElement : null;
    var path = had && had.getAttribute("data-path");
    var id = had && had.getAttribute("data-testid");
    buildProperties(panel);
    if (!had) return;
    var again = path !== null && path !== undefined
      ? panel.querySelector('[data-path="' + CSS.escape(path) + '"]')
      : id ? panel.querySelector('[data-testid="' + CSS.escape(id) + '"]') : null;
    if (!again || again.disabled) {
      again = panel.querySelector('[data-testid^="offer-"]:not([disabled])') ||
        panel.querySelector("input:not([readonly]), select:not([disabled]), button:not([disabled])");
    }
    if (again) again.focus();
  }

  function buildProperties(panel) {
    panel.replaceChildren();
    if (!selected) {
      panel.dataset.path = "";
      panel.appendChild(el("p", { class: "muted", text: T.nothing_selected }));
      drawFlowProperties(panel);
      drawPanelProblems();
      return;
    }
    if (selected.type === "state") {
      var s = stateByKey(selected.key);
      if (!s) { selected = null; return buildProperties(panel); }
      var base = "states[" + graph.states.indexOf(s) + "]";
      panel.dataset.path = base;
      var keyInput = textInput(s.key, function () {}, { "data-prop": "key", "data-path": base + ".key", spellcheck: "false" });
      keyInput.addEventListener("change", function () {
        var next = keyInput.value.trim();
        if (!next || next === s.key) return;
        if (stateByKey(next)) {
          // Two states of one key would merge their arrows: keep this one's key.
          keyInput.value = s.key;
          say(fmt(T.key_taken, { key: next }));
          return;
        }
        renameState(s.key, next);
        s.key = next;
        selected = { type: "state", key: next };
        draw();
        changed();
      });
      panel.append(
        el("h3", { text: T.state + " · " + label(s) }),
        field(T.key, keyInput),
      );
      labelFields(s, base, function () { cells.getCell("state:" + s.key).attr("label/text", label(s)); drawOutline(); }).forEach(function (f) { panel.appendChild(f); });
      panel.append(
        field(T.role, selectInput(setup.roles, s.role, function (value) { s.role = value; draw(); changed(); }, false, { "data-path": base + ".role" })),
        checkbox(T.terminal, s.terminal, function (value) { s.terminal = value; draw(); changed(); }, { "data-path": base + ".terminal" }),
        field(T.deadline, textInput(s.deadline ? s.deadline.after : "", function (value) {
          if (value) s.deadline = Object.assign({ on_breach: "remind" }, s.deadline || {}, { after: value.trim() });
          else delete s.deadline;
          changed();
        }, { "data-prop": "deadline", "data-path": base + ".deadline" })),
        field(T.on_breach, selectInput(setup.breach, s.deadline ? s.deadline.on_breach : "remind", function (value) {
          if (s.deadline) { s.deadline.on_breach = value; changed(); }
        }, false, { "data-path": base + ".deadline.on_breach" })),
        field(T.escalate_after, textInput(s.escalate_after, function (value) {
          if (value) s.escalate_after = value.trim();
          else delete s.escalate_after;
          changed();
        }, { "data-path": base + ".escalate_after" }))
      );
      panel.appendChild(grantsFor(s));
      if (!viewing) {
        panel.appendChild(el("button", { type: "button", "data-testid": "duplicate-state", text: T.duplicate, onclick: function () { duplicateState(s.key); } }));
      }
      drawPanelProblems();
      return;
    }
    var index = selected.index;
    var t = graph.transitions[index];
    if (!t) { selected = null; return buildProperties(panel); }
    var tBase = "transitions[" + index + "]";
    panel.dataset.path = tBase;
    var from = stateByKey(t.from), to = stateByKey(t.to);
    var tKey = textInput(t.key, function (value) {
      var next = value.trim();
      // A label still reading as the old key (as a new arrow's does) follows the key.
      if (t.labels && t.labels.en === t.key && next) t.labels.en = next;
      t.key = next;
      changed();
    }, { "data-prop": "key", "data-path": tBase + ".key", spellcheck: "false" });
    tKey.addEventListener("change", draw);
    panel.append(
      el("h3", { text: T.transition + " · " + fmt(T.from_to, { from: from ? label(from) : t.from, to: to ? label(to) : t.to }) }),
      field(T.key, tKey)
    );
    // Re-point the arrow: its key, labels, gate and guard go with it.
    var stateOptions = graph.states.map(function (st) { return [st.key, label(st) + " (" + st.key + ")"]; });
    panel.append(
      field(T.source, selectInput(stateOptions, t.from, function (value) { repoint(index, "from", value); }, false, { "data-path": tBase + ".from" })),
      field(T.target, selectInput(stateOptions, t.to, function (value) { repoint(index, "to", value); }, false, { "data-path": tBase + ".to" }))
    );
    if (!viewing) {
      var siblings = exitsOf(t.from), place = siblings.indexOf(index);
      panel.appendChild(el("div", { class: "field order-buttons", role: "group", "aria-label": T.order_hint }, [
        el("span", { class: "hint", text: fmt(T.order_place, { n: place + 1, of: siblings.length }) }),
        el("button", { type: "button", class: "link-button", "data-testid": "offer-earlier", disabled: place === 0, text: T.offer_earlier, onclick: function () { moveExit(index, -1); } }),
        el("button", { type: "button", class: "link-button", "data-testid": "offer-later", disabled: place === siblings.length - 1, text: T.offer_later, onclick: function () { moveExit(index, 1); } }),
      ]));
    }
    labelFields(t, tBase, function () { draw(); }).forEach(function (f) { panel.appendChild(f); });
    var guardInput = textInput(t.guard ? t.guard.expression : "", function (value) {
      if (value.trim()) t.guard = { expression: value, message: (t.guard && t.guard.message) || {} };
      else delete t.guard;
      changed();
    }, { "data-prop": "guard", "data-path": tBase + ".guard.expression", spellcheck: "false" });
    panel.append(
      field(T.gate, selectInput(setup.gates, t.gate, function (value) { t.gate = value; changed(); }, false, { "data-path": tBase + ".gate" })),
      field(T.guard, guardInput),

      checkbox(T.comment_required, t.comment === "required", function (value) {
        if (value) t.comment = "required";
        else delete t.comment;
        changed();
      }, { "data-path": tBase + ".comment" }),
      checkbox(T.reverses, t.reverses, function (value) {
        if (value) t.reverses = true;
        else delete t.reverses;
        changed();
      }, { "data-path": tBase + ".reverses" })
    );
    LOCALES.forEach(function (locale) {
      panel.appendChild(field(fmt(T.guard_message, { locale: locale }), textInput(t.guard && t.guard.message ? t.guard.message[locale] : "", function (value) {
        if (!t.guard) return;
        var message = Object.assign({}, t.guard.message);
        if (value) message[locale] = value;
        else delete message[locale];
        t.guard.message = message;
        changed();
      }, { "data-path": tBase + ".guard.message." + locale })));
    });
    drawPanelProblems();
  }

  function repoint(index, end, key) {
    var t = graph.transitions[index];
    t[end] = key;
    delete t.vertices; // bends drawn for the old ends would only tangle the new arrow
    draw();
    drawProperties();
    changed();
  }

  // With nothing selected: the flow's own labels and the fields its documents carry.
  function drawFlowProperties(panel) {
    panel.appendChild(el("h3", { text: T.flow }));
    labelFields(graph, "", function () {}).forEach(function (f) { panel.appendChild(f); });
    graph.fields = graph.fields || [];
    var box = el("fieldset", { class: "grants", "data-testid": "fields" }, [el("legend", { text: T.fields })]);
    graph.fields.forEach(function (f, i) {
      var base = "fields[" + i + "]";
      var row = el("div", { class: "grant-row", "data-field": i, "data-row": "", "data-path": base });
      var keyInput = textInput(f.key, function (value) { f.key = value.trim(); changed(); }, { spellcheck: "false", "data-path": base + ".key" });
      row.appendChild(field(T.key, keyInput));
      row.appendChild(field(T.field_type, selectInput(setup.field_types, f.type, function (value) {
        f.type = value;
        if (value !== "choice") delete f.choices;
        drawProperties();
        changed();
      }, false, { "data-path": base + ".type" })));
      labelFields(f, base, function () {}).forEach(function (x) { row.appendChild(x); });
      row.appendChild(checkbox(T.required, f.required, function (value) { f.required = value; changed(); }, { "data-path": base + ".required" }));
      if (f.type === "choice") {
        var known = {};
        (f.choices || []).forEach(function (c) { known[c.key] = c; });
        row.appendChild(field(T.choices, textInput((f.choices || []).map(function (c) { return c.key; }).join(", "), function (value) {
          f.choices = value.split(",").map(function (k) { return k.trim(); }).filter(Boolean).map(function (k) {
            return known[k] || { key: k, labels: { en: k } };
          });
          changed();
        }, { spellcheck: "false", "data-path": base + ".choices" })));
      }
      if (!viewing) row.appendChild(removeButton(graph.fields, i));
      box.appendChild(row);
    });
    if (!viewing) {
      box.appendChild(el("button", { type: "button", "data-testid": "add-field", text: T.add_field, onclick: function () {
        var key = uniqueKey("field", graph.fields.map(function (f) { return f.key; }));
        graph.fields.push({ key: key, type: "text", labels: { en: key }, required: false });
        drawProperties();
        changed();
      } }));
    }
    panel.appendChild(box);
  }

  // "Remove" on a row of the panel (a field, a grant): the item leaves its list.
  function removeButton(list, index) {
    return el("button", { type: "button", class: "link-button", text: T.remove, onclick: function () {
      list.splice(index, 1);
      drawProperties();
      changed();
    } });
  }

  function grantsFor(s) {
    var box = el("fieldset", { class: "grants" }, [el("legend", { text: T.who_decides })]);
    graph.grants.forEach(function (g, i) {
      if (g.state !== s.key) return;
      var base = "grants[" + i + "]";
      var who = g.grantee || (g.grantee = { kind: "superior" });
      var row = el("div", { class: "grant-row", "data-grant": i, "data-row": "", "data-path": base });
      row.appendChild(field(T.grantee, selectInput(setup.grantees, who.kind, function (value) {
        g.grantee = { kind: value };
        drawProperties();
        changed();
      }, false, { "data-path": base + ".grantee" })));
      if (who.kind === "member" || who.kind === "position") {
        var options = (pickers[who.kind === "member" ? "members" : "positions"] || []).map(function (c) { return [c.id, c.label]; });
        row.appendChild(field(who.kind === "member" ? T.member : T.position, selectInput(options, who[who.kind], function (value) {
          who[who.kind] = value ? Number(value) : undefined;
          changed();
        }, true, { "data-path": base + ".grantee." + who.kind })));
      } else if (who.kind === "levels_up") {
        row.appendChild(field(T.levels, textInput(who.levels, function (value) {
          var n = parseInt(value, 10);
          who.levels = isNaN(n) ? value : n;
          changed();
        }, { inputmode: "numeric", "data-path": base + ".grantee.levels" })));
      } else if (who.kind === "role") {
        row.appendChild(field(T.role_name, selectInput((pickers.roles || []).map(function (r) { return [r, r]; }), who.role, function (value) {
          who.role = value || undefined;
          changed();
        }, true, { "data-path": base + ".grantee.role" })));
      }
      row.appendChild(field(fmt(T.floor, { currency: setup.currency || "" }), textInput(g.min_amount, function (value) {
        if (value.trim()) g.min_amount = value.trim();
        else delete g.min_amount;
        changed();
      }, { inputmode: "decimal", "data-prop": "floor", "data-path": base + ".min_amount" })));
      row.appendChild(field(T.on_vacancy, selectInput(setup.vacancy, g.on_vacancy || "escalate", function (value) {
        g.on_vacancy = value;
        changed();
      }, false, { "data-path": base + ".on_vacancy" })));
      row.appendChild(field(T.max_levels, textInput(g.max_escalation_levels, function (value) {
        var n = parseInt(value, 10);
        if (!value.trim()) delete g.max_escalation_levels;
        else g.max_escalation_levels = String(n) === value.trim() ? n : value;
        changed();
      }, { inputmode: "numeric", "data-prop": "max-levels", "data-path": base + ".max_escalation_levels" })));
      if (!viewing) row.appendChild(removeButton(graph.grants, i));
      box.appendChild(row);
    });
    if (!viewing) {
      box.appendChild(el("button", { type: "button", "data-testid": "add-grant", text: T.add_grant, onclick: function () {
        graph.grants.push({ state: s.key, grantee: { kind: "superior" } });
        drawProperties();
        changed();
      } }));
    }
    return box;
  }

  // --- problems beside what they are about ------------------------------------------

  // The panel element a violation's path names: the input, or else the row (a grant, a
  // field) or the whole panel, whose data-path is the longest prefix of it. A missing
  // English label ("…labels") is about the English input.
  function placeFor(path) {
    if (/(^|\.)labels$/.test(path)) path += ".en";
    var panel = document.getElementById("properties");
    var best = null, bestLength = -1;
    [panel].concat(Array.prototype.slice.call(panel.querySelectorAll("[data-path]"))).forEach(function (node) {
      var p = node.getAttribute("data-path");
      if (p === null) return;
      var covers = path === p || (path.indexOf(p) === 0 && (p === "" ? false : /[.[]/.test(path.charAt(p.length))));
      if (covers && p.length > bestLength) { best = node; bestLength = p.length; }
    });
    return best;
  }

  // What the server answered about the item in the panel, written beside the input it
  // is about (aria-invalid and described by the message); a grant or field row with a
  // problem is outlined. A refused save (a value the loader could not read) is among them.
  function drawPanelProblems() {
    var panel = document.getElementById("properties");
    panel.querySelectorAll(".inline-problem").forEach(function (node) { node.remove(); });
    panel.querySelectorAll("[aria-invalid]").forEach(function (node) {
      node.removeAttribute("aria-invalid");
      node.removeAttribute("aria-describedby");
    });
    panel.querySelectorAll("[data-row][data-violation]").forEach(function (node) { node.removeAttribute("data-violation"); });
    if (viewing) return;
    var problems = (doc ? doc.violations : []).slice();
    if (refusal) {
      // The saved draft's violations at the refused path are about a value no longer on
      // the page: the refusal speaks for it.
      problems = problems.filter(function (v) { return (v.path || "").indexOf(refusal.path) !== 0; });
      problems.push(refusal);
    }
    problems.forEach(function (v, n) {
      var place = placeFor(v.path || "");
      if (!place) return;
      var id = "inline-problem-" + n;
      var note = el("p", { class: "inline-problem inline-" + v.severity, id: id, "data-testid": "inline-problem", "data-code": v.code, text: v.message });
      if (/^(INPUT|SELECT)$/.test(place.tagName)) {
        if (v.severity === "error") place.setAttribute("aria-invalid", "true");
        place.setAttribute("aria-describedby", ((place.getAttribute("aria-describedby") || "") + " " + id).trim());
        var anchor = place.closest(".field") || place;
        while (anchor.nextElementSibling && anchor.nextElementSibling.classList.contains("inline-problem")) anchor = anchor.nextElementSibling;
        anchor.after(note);
      } else {
        var head = place.querySelector(":scope > h3, :scope > legend");
        if (head) head.after(note);
        else place.prepend(note);
      }
      var row = place.closest("[data-row]");
      if (row && row.getAttribute("data-violation") !== "error") row.setAttribute("data-violation", v.severity);
    });
  }

  // --- renaming on the canvas ---------------------------------------------------------

  // An input over the state (or the arrow's middle) holding its label in the page's
  // language: Enter or leaving it keeps the text, Escape keeps the old one. Opened by a
  // double click, or F2 on the item in the outline.
  function renameInline(ref) {
    var item = ref.type === "state" ? stateByKey(ref.key) : graph.transitions[ref.index];
    var view = viewOf(ref);
    if (viewing || !item || !view) return;
    select(ref, false);
    var host = paper.el.parentNode;
    var hostBox = host.getBoundingClientRect();
    var box;
    if (ref.type === "state") {
      box = view.findNode("body").getBoundingClientRect();
    } else {
      var middle = paper.localToClientPoint(view.getPointAtRatio(0.5));
      box = { left: middle.x - STATE_W / 2, top: middle.y - 15, width: STATE_W, height: 30 };
    }
    var lang = document.documentElement.lang;
    var locale = LOCALES.indexOf(lang) >= 0 ? lang : "en";
    var before = (item.labels || {})[locale] || "";
    var input = el("input", {
      type: "text",
      class: "inline-rename",
      "data-testid": "inline-rename",
      "aria-label": fmt(T.label_in, { locale: locale }),
      value: before,
    });
    // CSSOM, not a style attribute: the CSP allows no inline styles.
    input.style.left = box.left - hostBox.left + "px";
    input.style.top = box.top - hostBox.top + "px";
    input.style.width = Math.max(box.width, 120) + "px";
    input.style.height = box.height + "px";
    host.appendChild(input);
    input.focus();
    input.select();
    var done = false;
    // Enter and Escape hand focus back to the item in the outline; leaving the input
    // for somewhere else leaves focus where the admin put it.
    function finish(keep, refocus) {
      if (done) return;
      done = true;
      var after = input.value.trim();
      input.remove();
      if (keep && after !== before) {
        item.labels = item.labels || {};
        if (after) item.labels[locale] = after;
        else delete item.labels[locale];
        draw();
        drawProperties();
        changed();
      }
      if (!refocus) return;
      var key = ref.type === "state" ? "state:" + ref.key : "transition:" + ref.index;
      var back = document.querySelector('[data-outline="' + CSS.escape(key) + '"]');
      if (back) back.focus();
    }
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        finish(event.key === "Enter", true);
      }
    });
    input.addEventListener("blur", function () { finish(true, false); });
  }

  // --- editing the structure -------------------------------------------------------

  function uniqueKey(base, taken) {
    var key = base, n = 2;
    while (taken.indexOf(key) >= 0) key = base + "_" + n++;
    return key;
  }

  // A copy of a state beside it, with its deadline and who may decide there (not its
  // arrows); the rename input opens on it, since two states of one name would confuse.
  function duplicateState(key) {
    var s = stateByKey(key);
    if (viewing || !s) return;
    var copy = JSON.parse(JSON.stringify(s));
    copy.key = uniqueKey(key + "_copy", graph.states.map(function (x) { return x.key; }));
    if (copy.role === "draft") copy.role = "pending"; // a flow starts in one place
    copy.x = s.x + 40;
    copy.y = s.y + STATE_H + 60;
    graph.states.push(copy);
    graph.grants.filter(function (g) { return g.state === key; }).forEach(function (g) {
      graph.grants.push(Object.assign(JSON.parse(JSON.stringify(g)), { state: copy.key }));
    });
    selected = { type: "state", key: copy.key };
    draw();
    drawProperties();
    changed();
    renameInline(selected);
  }

  function addState(x, y) {
    if (viewing) return;
    var key = uniqueKey("step", graph.states.map(function (s) { return s.key; }));
    // Named in every language at once (the English label is the one a flow must have).
    var labels = Object.assign({}, setup.new_state);
    graph.states.push({ key: key, labels: labels, role: "pending", x: Math.round(x), y: Math.round(y) });
    selected = { type: "state", key: key };
    draw();
    drawProperties();
    changed();
  }

  function removeSelected() {
    if (!selected || viewing) return;
    forgetVerdicts();
    if (selected.type === "state") {
      var s = stateByKey(selected.key);
      if (s && s.role === "draft") {
        say(T.delete_initial);
        return;
      }
      var key = selected.key;
      graph.states = graph.states.filter(function (x) { return x.key !== key; });
      // A state takes its transitions and grants with it.
      graph.transitions = graph.transitions.filter(function (t) { return t.from !== key && t.to !== key; });
      graph.grants = graph.grants.filter(function (g) { return g.state !== key; });
    } else {
      graph.transitions.splice(selected.index, 1);
    }
    selected = null;
    draw();
    drawProperties();
    changed();
  }

  paper.on("link:connect", function (linkView) {
    var link = linkView.model;
    var from = link.source().id.slice(6), to = link.target().id.slice(6);
    var taken = graph.transitions.filter(function (t) { return t.from === from; }).map(function (t) { return t.key; });
    var key = uniqueKey("go", taken);
    graph.transitions.push({ key: key, from: from, to: to, gate: "target", labels: { en: key } });
    selected = { type: "transition", index: graph.transitions.length - 1 };
    draw();
    drawProperties();
    changed();
  });

  paper.on("link:pointerup", function (linkView) {
    // A drag that ended nowhere leaves a dangling link behind: drop it (no transition).
    var link = linkView.model;
    if (!link.id || String(link.id).indexOf("transition:") !== 0) {
      if (!link.target().id) link.remove();
    }
  });

  var moved = false;
  cells.on("change:position", function (cell) {
    if (!cell.isElement() || viewing) return;
    moved = true;
    var s = stateByKey(String(cell.id).slice(6));
    if (!s) return;
    var p = cell.position();
    s.x = Math.max(0, Math.round(p.x));
    s.y = Math.max(0, Math.round(p.y));
    respread(s.key);
  });

  paper.on("element:pointerup", function (view) {
    if (moved && !viewing) changed();
    moved = false;
    select({ type: "state", key: String(view.model.id).slice(6) }, false);
  });
  paper.on("element:pointerdblclick", function (view) {
    renameInline({ type: "state", key: String(view.model.id).slice(6) });
  });
  paper.on("link:pointerdblclick", function (view) {
    var id = String(view.model.id);
    if (id.indexOf("transition:") === 0) renameInline({ type: "transition", index: Number(id.slice(11)) });
  });
  paper.on("link:pointerclick", function (view) {
    var id = String(view.model.id);
    if (id.indexOf("transition:") === 0) select({ type: "transition", index: Number(id.slice(11)) }, false);
  });
  paper.on("blank:pointerclick", function () { select(null, false); });
  paper.on("blank:pointerdblclick", function (event, x, y) { addState(x - STATE_W / 2, y - STATE_H / 2); });

  // Pan by dragging empty canvas; zoom with the buttons or Ctrl + wheel.
  var panFrom = null;
  paper.on("blank:pointerdown", function (event) {
    var t = paper.translate();
    panFrom = { x: event.clientX, y: event.clientY, tx: t.tx, ty: t.ty };
  });
  document.addEventListener("mousemove", function (event) {
    if (panFrom) paper.translate(panFrom.tx + event.clientX - panFrom.x, panFrom.ty + event.clientY - panFrom.y);
  });
  document.addEventListener("mouseup", function () { panFrom = null; });
  function zoom(factor) {
    var s = paper.scale().sx;
    var next = Math.min(2, Math.max(0.05, s * factor));
    paper.scale(next, next);
  }
  paper.on("blank:mousewheel cell:mousewheel", function () {
    var event = arguments[arguments.length - 4] || arguments[0];
    var delta = arguments[arguments.length - 1];
    if (event && event.ctrlKey) { event.preventDefault(); zoom(delta > 0 ? 1.1 : 0.9); }
  });

  function fit() {
    paper.transformToFitContent({ padding: 30, maxScale: 1.2, minScale: 0.05 });
  }

  function autoLayout() {
    if (viewing || !graph.states.length) return;
    var started = performance.now();
    var pos = autoPositions(graph, BOX, paper.el.getBoundingClientRect());
    graph.states.forEach(function (s) {
      s.x = Math.max(0, pos[s.key].x);
      s.y = Math.max(0, pos[s.key].y);
    });
    graph.transitions.forEach(function (t) { delete t.vertices; });
    // Move what is drawn instead of drawing it again: positions and bends only.
    paper.freeze();
    graph.states.forEach(function (st) {
      var cell = cells.getCell("state:" + st.key);
      if (cell) cell.position(st.x, st.y);
    });
    var spread = spreadVertices(graph, BOX);
    graph.transitions.forEach(function (t, i) {
      var link = cells.getCell("transition:" + i);
      if (link) link.vertices(spread[i] || []);
    });
    paper.unfreeze();
    moved = false;
    fit();
    window.flowEditor.lastLayoutMs = performance.now() - started;
    changed();
  }

  // A new state goes where freeSpot finds room in view; when the view is full, right of
  // everything, and the view is fitted to show it.
  document.getElementById("add-state").addEventListener("click", function () {
    var box = paper.el.getBoundingClientRect();
    var low = paper.clientToLocalPoint({ x: box.left, y: box.top });
    var high = paper.clientToLocalPoint({ x: box.right, y: box.bottom });
    var spot = freeSpot(graph, BOX, low, high);
    if (spot) return addState(spot.x, spot.y);
    var right = graph.states.reduce(function (most, s) { return Math.max(most, s.x); }, 0);
    addState(right + STATE_W + 120, Math.max(0, (low.y + high.y - STATE_H) / 2));
    fit();
  });
  document.getElementById("delete-selected").addEventListener("click", removeSelected);
  document.getElementById("auto-layout").addEventListener("click", autoLayout);
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("zoom-in").addEventListener("click", function () { zoom(1.2); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoom(1 / 1.2); });
  document.addEventListener("keydown", function (event) {
    if (dialog.open) return; // the publish confirmation is modal
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if (event.key === "Delete" && !typing && selected && !event.target.closest("#outline")) removeSelected();
  });

  // --- saving ---------------------------------------------------------------------

  // Leaving with an edit not yet saved (waiting, in flight, or retrying) asks first.
  window.addEventListener("beforeunload", function (event) {
    if (!viewing && (dirty || saving || refusal)) {
      event.preventDefault();
      event.returnValue = T.leave_unsaved;
      return T.leave_unsaved;
    }
  });

  // --- undo and redo ----------------------------------------------------------------

  // One step per save (see history.js). Loading, importing, publishing, discarding or
  // starting from a version begins a new history.
  var edits = new EditHistory(200);
  var undoButton = document.getElementById("undo");
  var redoButton = document.getElementById("redo");

  function resetHistory() {
    edits.reset(JSON.stringify(graph));
    refreshHistory();
  }

  function record() {
    if (edits.record(JSON.stringify(graph))) refreshHistory();
  }

  function refreshHistory() {
    var locked = Boolean(viewing || conflict);
    undoButton.disabled = locked || !(edits.canUndo() || dirty);
    redoButton.disabled = locked || !edits.canRedo();
  }

  function step(move) {
    if (viewing || conflict) return;
    record(); // an edit not saved yet is a step of its own
    var snapshot = move();
    if (snapshot === null) return;
    graph = JSON.parse(snapshot);
    forgetVerdicts();
    // A transition is known by its index, which may name another arrow now.
    if (selected && (selected.type === "transition" || !stateByKey(selected.key))) selected = null;
    draw();
    drawProperties();
    changed(); // saved like any edit; record() finds nothing new
  }

  function undo() { step(function () { return edits.undo(); }); }
  function redo() { step(function () { return edits.redo(); }); }
  undoButton.addEventListener("click", undo);
  redoButton.addEventListener("click", redo);
  document.addEventListener("keydown", function (event) {
    if (dialog.open || !(event.ctrlKey || event.metaKey) || event.altKey) return;
    // In a text field the browser's own undo applies to the text.
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) return;
    var key = event.key.toLowerCase();
    if (key === "z" && !event.shiftKey) { event.preventDefault(); undo(); }
    else if ((key === "z" && event.shiftKey) || key === "y") { event.preventDefault(); redo(); }
  });

  function changed() {
    if (viewing) return;
    clearRoute(); // it answered for the draft as it was
    dirty = true;
    refreshPublish();
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, SAVE_DELAY);
  }

  function save() {
    if (conflict || viewing) return;
    if (saving) { saveTimer = setTimeout(save, SAVE_DELAY); return; }
    saving = true;
    dirty = false;
    record();
    say(T.saving);
    var started = performance.now();
    api("PUT", "/draft", { revision: doc.revision, graph: graph }).then(function (answer) {
      saving = false;
      if (answer.status === 0 || answer.status >= 500) {
        // The server could not be reached, or failed: keep the graph here and retry,
        // less often the longer it lasts.
        dirty = true;
        say(T.retrying);
        alarm(T.retrying, false);
        refreshPublish();
        clearTimeout(saveTimer);
        saveTimer = setTimeout(save, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 15000);
        return;
      }
      roundTrips.push(performance.now() - started);
      if (answer.ok) {
        retryDelay = 1000;
        doc = answer.data;
        refusal = null;
        alarm("");
        say(fmt(T.saved, { revision: doc.revision }));
        markViolations();
        drawPanelProblems();
      } else if (answer.status === 409) {
        conflict = true;
        alarm(fmt(T.conflict, { revision: answer.data.error.details.current }), true);
        say(fmt(T.conflict, { revision: answer.data.error.details.current }));
      } else {
        // Refused as a document (a path the loader names): nothing saved, keep editing;
        // the message also stands beside the input the path names, if it is open.
        var error = (answer.data && answer.data.error) || {};
        refusal = { path: (error.details || {}).path || "", code: error.code, severity: "error", message: errorMessage(answer) };
        alarm(fmt(T.refused, { message: errorMessage(answer) }), false);
        say(fmt(T.refused, { message: errorMessage(answer) }));
        drawPanelProblems();
      }
      refreshPublish();
    });
  }

  reloadButton.addEventListener("click", function () {
    conflict = false;
    alarm("");
    load();
  });

  // --- publish, discard, import, versions ----------------------------------------

  // The last verdict names transitions by index: after a change of structure it may
  // point at other arrows, so it is set aside until the next save answers.
  function forgetVerdicts() {
    if (doc) doc.violations = [];
  }

  // Actions that replace the draft wait for the autosave: an edit still waiting is
  // sent now, and while a save is on its way they ask the admin to try again.
  function settled() {
    if (dirty && !saving && !conflict) {
      clearTimeout(saveTimer);
      save();
    }
    if (saving || dirty) {
      say(T.wait_for_save);
      return false;
    }
    return true;
  }

  // The server's draft replaces the page's: nothing selected, nothing pending.
  function takeDraft(answer) {
    clearTimeout(saveTimer);
    viewing = null;
    dirty = false;
    refusal = null;
    doc = answer;
    graph = doc.graph;
    graph.transitions = graph.transitions || [];
    graph.grants = graph.grants || [];
    selected = null;
    reloadButton.textContent = T.reload;
    resetHistory();
  }

  var dialog = document.getElementById("publish-dialog");

  publishButton.addEventListener("click", function () {
    if (publishButton.disabled) return;
    api("GET", "/changes").then(function (answer) {
      if (!answer.ok) { alarm(fmt(T.failed, { message: errorMessage(answer) })); return; }
      var changes = answer.data;
      var box = document.getElementById("publish-changes");
      box.replaceChildren();
      var next = (doc.base_version || 0) + 1;
      document.getElementById("publish-dialog-title").textContent = fmt(T.publish_title, { version: next });
      if (!changes.any) box.appendChild(el("p", { text: T.publish_nothing }));
      // Each part a list: what was added, removed or changed, in the server's words.
      [["states", T.states], ["transitions", T.transitions], ["grants", T.grants], ["fields", T.fields]].forEach(function (part) {
        var c = changes[part[0]];
        var items = [];
        ["added", "removed", "changed"].forEach(function (what) {
          (c[what] || []).forEach(function (item) {
            items.push(el("li", { "data-change": what }, [el("span", { class: "tag change-" + what, text: T[what] }), " " + item.text]));
          });
        });
        if (items.length) {
          box.appendChild(el("section", { "data-part": part[0] }, [el("h3", { text: part[1] }), el("ul", { class: "plain-list changes" }, items)]));
        }
      });
      dialog.showModal();
      document.getElementById("publish-confirm").focus();
    });
  });
  document.getElementById("publish-cancel").addEventListener("click", function () { dialog.close(); });
  var confirmButton = document.getElementById("publish-confirm");
  confirmButton.addEventListener("click", function () {
    if (confirmButton.disabled) return;
    confirmButton.disabled = true; // one publish per confirmation
    api("POST", "/draft/publish", { revision: doc.revision }).then(function (answer) {
      confirmButton.disabled = false;
      dialog.close();
      if (answer.ok) {
        takeDraft(answer.data.draft);
        say(fmt(T.published, { version: answer.data.version }));
        alarm("");
        draw();
        drawProperties();
        loadVersions();
      } else if (answer.status === 409) {
        conflict = true;
        alarm(errorMessage(answer), true);
      } else {
        alarm(errorMessage(answer), false);
      }
      refreshPublish();
      // Publish is disabled now: the status line says what happened.
      statusLine.focus();
    });
  });

  document.getElementById("discard").addEventListener("click", function () {
    if (!doc || !doc.saved) return;
    // A save on its way would land on a draft that is gone: let it land first.
    if (saving) { say(T.wait_for_save); return; }
    if (!window.confirm(T.discard_confirm)) return;
    clearTimeout(saveTimer); // what was waiting goes with the draft
    api("POST", "/draft/discard", { revision: doc.revision }).then(function (answer) {
      if (!answer.ok) { alarm(errorMessage(answer), answer.status === 409); return; }
      takeDraft(answer.data);
      say(T.discarded);
      draw();
      drawProperties();
      refreshPublish();
    });
  });

  // The file goes to the server as it is: its loader says what is wrong (not JSON, at
  // which line; a wrong shape, at which path) in the admin's language, and a refused
  // file changes nothing, here or there.
  document.getElementById("import-file").addEventListener("change", function (event) {
    var file = event.target.files[0];
    event.target.value = "";
    if (!file || viewing || !settled()) return;
    api("PUT", "/draft/import?revision=" + doc.revision, file).then(function (answer) {
      if (!answer.ok) {
        alarm(fmt(T.import_refused, { name: file.name, message: errorMessage(answer) }), answer.status === 409);
        return;
      }
      takeDraft(answer.data);
      alarm("");
      say(fmt(T.imported, { revision: doc.revision }));
      draw();
      fit();
      drawProperties();
      refreshPublish();
    });
  });

  function loadVersions() {
    api("GET", "/versions").then(function (answer) {
      var list = document.getElementById("versions");
      list.replaceChildren();
      (answer.ok ? answer.data : []).forEach(function (v) {
        list.appendChild(el("li", { "data-version": v.version }, [
          el("strong", { text: "v" + v.version + " " }),
          el("span", { class: "muted", text: fmt(T.published_by, { when: new Date(v.published_at).toLocaleString(), who: v.published_by || "—" }) + " " }),
          el("button", { type: "button", class: "link-button", text: T.view, onclick: function () { showVersion(v.version); } }),
          " ",
          el("button", { type: "button", class: "link-button", text: T.start_from, onclick: function () { startFrom(v.version); } }),
          " ",
          el("a", { href: setup.export + "?version=" + v.version, download: "", "data-testid": "export-version", text: fmt(T.export_version, { version: v.version }) }),
        ]));
      });
    });
  }

  function showVersion(version) {
    if (!viewing && !settled()) return; // the draft's last edit is saved before it goes
    api("GET", "/versions/" + version).then(function (answer) {
      if (!answer.ok) { alarm(fmt(T.failed, { message: errorMessage(answer) })); return; }
      viewing = version;
      graph = answer.data.graph;
      selected = null;
      say(fmt(T.viewing, { version: version }));
      alarm(fmt(T.viewing, { version: version }), false, true);
      reloadButton.hidden = false;
      reloadButton.textContent = T.back;
      draw();
      fit();
      drawProperties();
      refreshPublish();
    });
  }

  function startFrom(version) {
    if (saving) { say(T.wait_for_save); return; }
    clearTimeout(saveTimer); // the version replaces what was waiting
    api("POST", "/draft/from-version", { version: version, revision: doc.revision }).then(function (answer) {
      if (!answer.ok) { alarm(errorMessage(answer), answer.status === 409); return; }
      takeDraft(answer.data);
      alarm("");
      say(fmt(T.saved, { revision: doc.revision }));
      draw();
      fit();
      drawProperties();
      refreshPublish();
    });
  }

  // --- who would approve (the saved draft, for a member and an amount) --------------

  var routeSteps = document.getElementById("route-steps");

  function clearRoute() {
    joint.highlighters.stroke.removeAll(paper, "route");
    routeSteps.replaceChildren();
  }

  document.getElementById("route-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var member = Number(document.getElementById("route-member").value);
    var amount = document.getElementById("route-amount").value;
    clearRoute();
    api("POST", "/route", { member_id: member, amount: amount }).then(function (answer) {
      if (!answer.ok) {
        routeSteps.appendChild(el("li", { class: "field-error", text: errorMessage(answer) }));
        return;
      }
      answer.data.steps.forEach(function (step) {
        var s = stateByKey(step.state);
        var name = s ? label(s) : step.state;
        var text = step.routable
          ? fmt(T.step_deciders, { state: name, names: step.approvers.join(", ") })
          : fmt(T.step_blocked, { state: name, reason: step.gaps.join(" ") });
        routeSteps.appendChild(el("li", { "data-state": step.state, "data-routable": String(step.routable), text: text }));
        var view = viewOf({ type: "state", key: step.state });
        if (view) {
          joint.highlighters.stroke.add(view, "body", "route", {
            padding: 8,
            attrs: { stroke: step.routable ? "#15803d" : "#dc2626", "stroke-width": 3, "stroke-dasharray": step.routable ? "" : "6 4" },
          });
        }
      });
    });
  });

  // --- loading --------------------------------------------------------------------

  var pickers = {};

  function load() {
    return api("GET", "/draft").then(function (answer) {
      if (!answer.ok) { alarm(fmt(T.failed, { message: errorMessage(answer) })); return; }
      takeDraft(answer.data);
      var started = performance.now();
      draw();
      fit();
      window.flowEditor.loadMs = performance.now() - started;
      // A draft someone else left says whose it is: their work is about to be edited.
      if (doc.saved && doc.updated_by && !doc.updated_by_me) {
        say(fmt(T.saved_by, { revision: doc.revision, who: doc.updated_by, when: new Date(doc.updated_at).toLocaleString(document.documentElement.lang) }));
      } else {
        say(doc.saved ? fmt(T.saved, { revision: doc.revision }) : T.unsaved);
      }
      drawProperties();
      refreshPublish();
    });
  }

  // Read-only hooks for the browser tests: figures, never a way to change the draft.
  window.flowEditor = {
    roundTrips: roundTrips,
    revision: function () { return doc ? doc.revision : 0; },
    loadMs: null,
    lastLayoutMs: null,
    ready: null,
  };
  window.flowEditor.ready = Promise.all([
    api("GET", "/pickers").then(function (answer) {
      pickers = answer.ok ? answer.data : {};
      var select = document.getElementById("route-member");
      (pickers.members || []).forEach(function (m) {
        select.appendChild(el("option", { value: m.id, text: m.label }));
      });
    }),
    load(),
  ]).then(loadVersions);
})();
