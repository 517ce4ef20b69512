// Where states and arrows go: arrows between the same two states fanned out, self-loops
// drawn clear of their state, auto-layout (dagre, called directly), and a free spot for
// a new state. Pure functions of the graph's JSON and a box on the page; nothing here
// draws.

export var STATE_W = 160;
export var STATE_H = 46;

function stateIn(graph, key) {
  return graph.states.find(function (s) { return s.key === key; });
}

// Arrows between the same two states fan out; a self-loop circles the top right
// corner. Bends the admin drew (vertices) win. Returns {transition index: points},
// for every arrow or (with `onlyState`) for the arrows touching that state.
export function spreadVertices(graph, onlyState) {
  var groups = {};
  var found = {};
  graph.transitions.forEach(function (t, i) {
    if (t.vertices && t.vertices.length) return;
    if (onlyState && t.from !== onlyState && t.to !== onlyState) return;
    var pair = [t.from, t.to].sort().join("\u0000");
    (groups[pair] = groups[pair] || []).push(i);
  });
  Object.keys(groups).forEach(function (pair) {
    var members = groups[pair];
    members.forEach(function (index, k) {
      var t = graph.transitions[index];
      var a = stateIn(graph, t.from), b = stateIn(graph, t.to);
      if (!a || !b) return;
      if (t.from === t.to) {
        var lift = 34 + 18 * k;
        found[index] = [
          { x: a.x + STATE_W - 20, y: a.y - lift },
          { x: a.x + STATE_W + lift, y: a.y - lift },
          { x: a.x + STATE_W + lift, y: a.y + 12 },
        ];
        return;
      }
      if (members.length === 1) { found[index] = []; return; }
      var ax = a.x + STATE_W / 2, ay = a.y + STATE_H / 2, bx = b.x + STATE_W / 2, by = b.y + STATE_H / 2;
      var dx = bx - ax, dy = by - ay, length = Math.hypot(dx, dy) || 1;
      // Perpendicular offset, signed the same way whichever direction the arrow runs.
      var sign = t.from < t.to ? 1 : -1;
      var offset = (k - (members.length - 1) / 2) * 36 * sign;
      found[index] = [{ x: (ax + bx) / 2 - (dy / length) * offset, y: (ay + by) / 2 + (dx / length) * offset }];
    });
  });
  return found;
}

// The arrows dagre lays out. A small flow gives it every arrow. In a large one, long
// arrows and arrows back to earlier steps make dagre's crossing reduction slow
// (seconds at 256 arrows), so it gets only the arrows one step forward from the draft
// state (by breadth-first distance): the same columns, in well under a second, with
// the other arrows drawn straight across.
export var FULL_LAYOUT_ARROWS = 64;

function layoutEdges(graph) {
  var arrows = graph.transitions.filter(function (t) { return t.from !== t.to; });
  var pairs = arrows.map(function (t) { return [t.from, t.to]; });
  if (arrows.length <= FULL_LAYOUT_ARROWS) return pairs;
  var start = graph.states.find(function (st) { return st.role === "draft"; }) || graph.states[0];
  var distance = {};
  var queue = start ? [start.key] : [];
  if (start) distance[start.key] = 0;
  while (queue.length) {
    var at = queue.shift();
    pairs.forEach(function (pair) {
      if (pair[0] === at && !(pair[1] in distance)) {
        distance[pair[1]] = distance[at] + 1;
        queue.push(pair[1]);
      }
    });
  }
  return pairs.filter(function (pair) {
    return pair[0] in distance && distance[pair[1]] === distance[pair[0]] + 1;
  });
}

// Outcomes many steps lead to (rejected, withdrawn): reached from three or more states,
// with no way on but back to the start or to another such outcome. Ranked with the
// rest they would stretch the flow into one long chain, every step a column before
// them; they are set aside in a row of their own.
function outcomesAside(graph) {
  var start = graph.states.find(function (st) { return st.role === "draft"; });
  var startKey = start ? start.key : null;
  var exits = {}, sources = {};
  graph.transitions.forEach(function (t) {
    if (t.from === t.to) return;
    (exits[t.from] = exits[t.from] || []).push(t.to);
    (sources[t.to] = sources[t.to] || {})[t.from] = true;
  });
  var aside = {};
  graph.states.forEach(function (s) {
    if (s.key !== startKey && Object.keys(sources[s.key] || {}).length >= 3) aside[s.key] = true;
  });
  // Drop any with a way on to the flow itself, until none is left to drop.
  for (var dropped = true; dropped;) {
    dropped = false;
    Object.keys(aside).forEach(function (key) {
      if ((exits[key] || []).some(function (to) { return to !== startKey && !aside[to]; })) {
        delete aside[key];
        dropped = true;
      }
    });
  }
  return Object.keys(aside).length <= graph.states.length - 2 ? aside : {};
}

// Top-left positions by state key: dagre for the flow, then the outcomes set aside in
// a row below it (a column beside it, top to bottom), each under the mean of the
// states that lead there, none on top of another.
function layoutPositions(graph, rankdir, edges, aside) {
  var layout = new dagre.graphlib.Graph();
  layout.setGraph({ rankdir: rankdir, nodesep: 50, ranksep: 90, marginx: 20, marginy: 20 });
  layout.setDefaultEdgeLabel(function () { return {}; });
  graph.states.forEach(function (s) {
    if (!aside[s.key]) layout.setNode(s.key, { width: STATE_W, height: STATE_H });
  });
  edges.forEach(function (pair) {
    if (!aside[pair[0]] && !aside[pair[1]]) layout.setEdge(pair[0], pair[1]);
  });
  dagre.layout(layout);
  var pos = {};
  layout.nodes().forEach(function (key) {
    var node = layout.node(key);
    pos[key] = { x: Math.round(node.x - STATE_W / 2), y: Math.round(node.y - STATE_H / 2) };
  });
  var along = rankdir === "LR" ? "x" : "y", across = rankdir === "LR" ? "y" : "x";
  var size = { x: STATE_W, y: STATE_H };
  var edge = 90 + Math.max.apply(null, Object.keys(pos).map(function (k) { return pos[k][across] + size[across]; }));
  var wanted = Object.keys(aside).map(function (key) {
    var from = graph.transitions.filter(function (t) { return t.to === key && pos[t.from]; });
    var mean = from.reduce(function (sum, t) { return sum + pos[t.from][along]; }, 0) / (from.length || 1);
    return { key: key, at: mean };
  }).sort(function (a, b) { return a.at - b.at; });
  var next = -Infinity;
  wanted.forEach(function (w) {
    var at = Math.round(Math.max(w.at, next));
    pos[w.key] = {};
    pos[w.key][along] = at;
    pos[w.key][across] = edge;
    next = at + size[along] + 60;
  });
  return pos;
}

// How large positions would be drawn once fitted into `box` (the canvas on the page).
function fittedScale(pos, box) {
  var keys = Object.keys(pos);
  var xs = keys.map(function (k) { return pos[k].x; }), ys = keys.map(function (k) { return pos[k].y; });
  var width = Math.max.apply(null, xs) - Math.min.apply(null, xs) + STATE_W;
  var height = Math.max.apply(null, ys) - Math.min.apply(null, ys) + STATE_H;
  return Math.min(box.width / width, box.height / height);
}

// Top-left positions for every state, by key. Left to right reads best; a long chain
// on a narrow canvas goes top to bottom when that draws it larger. A large flow gets one
// layout (two would double the wait).
export function autoPositions(graph, box) {
  var edges = layoutEdges(graph);
  var aside = outcomesAside(graph);
  var pos = layoutPositions(graph, "LR", edges, aside);
  if (edges.length <= FULL_LAYOUT_ARROWS) {
    var downward = layoutPositions(graph, "TB", edges, aside);
    if (fittedScale(downward, box) > fittedScale(pos, box) * 1.25) pos = downward;
  }
  return pos;
}

// A place for a new state between `low` and `high` (the canvas's corners, in graph
// units): the middle, or the nearest free spot in view (same row first, then rows above
// and below), with room for an arrow to whatever is beside it. Null when the view is full.
export function freeSpot(graph, low, high) {
  var cx = (low.x + high.x - STATE_W) / 2, cy = (low.y + high.y - STATE_H) / 2;
  var stepX = STATE_W + 120, stepY = STATE_H + 80;
  function free(x, y) {
    return !graph.states.some(function (s) { return Math.abs(s.x - x) < STATE_W + 40 && Math.abs(s.y - y) < STATE_H + 40; });
  }
  // With a margin: the handle sticks out on the right.
  function inView(x, y) { return x >= low.x + 10 && y >= low.y + 10 && x + STATE_W + 20 <= high.x && y + STATE_H + 10 <= high.y; }
  var offsets = [];
  for (var i = -4; i <= 4; i++) for (var j = -4; j <= 4; j++) offsets.push([i, j]);
  offsets.sort(function (a, b) {
    var ringA = Math.max(Math.abs(a[0]), Math.abs(a[1])), ringB = Math.max(Math.abs(b[0]), Math.abs(b[1]));
    return ringA - ringB || Math.abs(a[1]) - Math.abs(b[1]) || b[0] - a[0];
  });
  var spot = null;
  offsets.some(function (o) {
    var x = cx + o[0] * stepX, y = cy + o[1] * stepY;
    if (free(x, y) && inView(x, y) && x >= 0 && y >= 0) spot = { x: x, y: y };
    return spot;
  });
  return spot;
}
