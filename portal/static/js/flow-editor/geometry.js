// Where states and arrows go: arrows between the same two states fanned out, self-loops
// drawn clear of their state, auto-layout (dagre, called directly), and a free spot for
// a new state. Pure functions of the graph's JSON, the size of a state's box (`box`,
// {width, height}: the server's, one size for every drawing of a graph) and a box on
// the page; nothing here draws.

const stateIn = (graph, key) => graph.states.find((s) => s.key === key);

// Arrows between the same two states fan out; a self-loop circles the top right
// corner. Bends the admin drew (vertices) win. Returns {transition index: points},
// for every arrow or (with `onlyState`) for the arrows touching that state.
export function spreadVertices(graph, box, onlyState) {
  const groups = {};
  const found = {};
  graph.transitions.forEach((t, i) => {
    if (t.vertices && t.vertices.length) return;
    if (onlyState && t.from !== onlyState && t.to !== onlyState) return;
    const pair = [t.from, t.to].sort().join("\u0000");
    (groups[pair] = groups[pair] || []).push(i);
  });
  for (const members of Object.values(groups)) {
    members.forEach((index, k) => {
      const t = graph.transitions[index];
      const a = stateIn(graph, t.from);
      const b = stateIn(graph, t.to);
      if (!a || !b) return;
      if (t.from === t.to) {
        const lift = 34 + 18 * k;
        found[index] = [
          { x: a.x + box.width - 20, y: a.y - lift },
          { x: a.x + box.width + lift, y: a.y - lift },
          { x: a.x + box.width + lift, y: a.y + 12 },
        ];
        return;
      }
      if (members.length === 1) {
        found[index] = [];
        return;
      }
      const ax = a.x + box.width / 2, ay = a.y + box.height / 2;
      const bx = b.x + box.width / 2, by = b.y + box.height / 2;
      const dx = bx - ax, dy = by - ay, length = Math.hypot(dx, dy) || 1;
      // Perpendicular offset, signed the same way whichever direction the arrow runs.
      const sign = t.from < t.to ? 1 : -1;
      const offset = (k - (members.length - 1) / 2) * 36 * sign;
      found[index] = [{ x: (ax + bx) / 2 - (dy / length) * offset, y: (ay + by) / 2 + (dx / length) * offset }];
    });
  }
  return found;
}

// The arrows dagre lays out. A small flow gives it every arrow. In a large one, long
// arrows and arrows back to earlier steps make dagre's crossing reduction slow
// (seconds at 256 arrows), so it gets only the arrows one step forward from the draft
// state (by breadth-first distance): the same columns, in well under a second, with
// the other arrows drawn straight across.
export const FULL_LAYOUT_ARROWS = 64;

function layoutEdges(graph) {
  const arrows = graph.transitions.filter((t) => t.from !== t.to);
  const pairs = arrows.map((t) => [t.from, t.to]);
  if (arrows.length <= FULL_LAYOUT_ARROWS) return pairs;
  const start = graph.states.find((st) => st.role === "draft") || graph.states[0];
  const distance = {};
  const queue = start ? [start.key] : [];
  if (start) distance[start.key] = 0;
  while (queue.length) {
    const at = queue.shift();
    for (const [from, to] of pairs) {
      if (from === at && !(to in distance)) {
        distance[to] = distance[at] + 1;
        queue.push(to);
      }
    }
  }
  return pairs.filter(([from, to]) => from in distance && distance[to] === distance[from] + 1);
}

// Outcomes many steps lead to (rejected, withdrawn): reached from three or more states,
// with no way on but back to the start or to another such outcome. Ranked with the
// rest they would stretch the flow into one long chain, every step a column before
// them; they are set aside in a row of their own.
function outcomesAside(graph) {
  const start = graph.states.find((st) => st.role === "draft");
  const startKey = start ? start.key : null;
  const exits = {}, sources = {};
  for (const t of graph.transitions) {
    if (t.from === t.to) continue;
    (exits[t.from] = exits[t.from] || []).push(t.to);
    (sources[t.to] = sources[t.to] || {})[t.from] = true;
  }
  const aside = {};
  for (const s of graph.states) {
    if (s.key !== startKey && Object.keys(sources[s.key] || {}).length >= 3) aside[s.key] = true;
  }
  // Drop any with a way on to the flow itself, until none is left to drop.
  for (let dropped = true; dropped;) {
    dropped = false;
    for (const key of Object.keys(aside)) {
      if ((exits[key] || []).some((to) => to !== startKey && !aside[to])) {
        delete aside[key];
        dropped = true;
      }
    }
  }
  return Object.keys(aside).length <= graph.states.length - 2 ? aside : {};
}

// Top-left positions by state key: dagre for the flow, then the outcomes set aside in
// a row below it (a column beside it, top to bottom), each under the mean of the
// states that lead there, none on top of another.
function layoutPositions(graph, box, rankdir, edges, aside) {
  const layout = new dagre.graphlib.Graph();
  layout.setGraph({ rankdir, nodesep: 50, ranksep: 90, marginx: 20, marginy: 20 });
  layout.setDefaultEdgeLabel(() => ({}));
  for (const s of graph.states) {
    if (!aside[s.key]) layout.setNode(s.key, { width: box.width, height: box.height });
  }
  for (const [from, to] of edges) {
    if (!aside[from] && !aside[to]) layout.setEdge(from, to);
  }
  dagre.layout(layout);
  const pos = {};
  for (const key of layout.nodes()) {
    const node = layout.node(key);
    pos[key] = { x: Math.round(node.x - box.width / 2), y: Math.round(node.y - box.height / 2) };
  }
  const along = rankdir === "LR" ? "x" : "y", across = rankdir === "LR" ? "y" : "x";
  const size = { x: box.width, y: box.height };
  const edge = 90 + Math.max(...Object.values(pos).map((p) => p[across] + size[across]));
  const wanted = Object.keys(aside).map((key) => {
    const from = graph.transitions.filter((t) => t.to === key && pos[t.from]);
    const mean = from.reduce((sum, t) => sum + pos[t.from][along], 0) / (from.length || 1);
    return { key, at: mean };
  }).sort((a, b) => a.at - b.at);
  let next = -Infinity;
  for (const w of wanted) {
    const at = Math.round(Math.max(w.at, next));
    pos[w.key] = { [along]: at, [across]: edge };
    next = at + size[along] + 60;
  }
  return pos;
}

// How large positions would be drawn once fitted into `view` (the canvas on the page).
function fittedScale(pos, box, view) {
  const points = Object.values(pos);
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const width = Math.max(...xs) - Math.min(...xs) + box.width;
  const height = Math.max(...ys) - Math.min(...ys) + box.height;
  return Math.min(view.width / width, view.height / height);
}

// Top-left positions for every state, by key, to fit `view` (the canvas on the page).
// Left to right reads best; a long chain on a narrow canvas goes top to bottom when
// that draws it larger. A large flow gets one layout (two would double the wait).
export function autoPositions(graph, box, view) {
  const edges = layoutEdges(graph);
  const aside = outcomesAside(graph);
  let pos = layoutPositions(graph, box, "LR", edges, aside);
  if (edges.length <= FULL_LAYOUT_ARROWS) {
    const downward = layoutPositions(graph, box, "TB", edges, aside);
    if (fittedScale(downward, box, view) > fittedScale(pos, box, view) * 1.25) pos = downward;
  }
  return pos;
}

// A place for a new state between `low` and `high` (the canvas's corners, in graph
// units): the middle, or the nearest free spot in view (same row first, then rows above
// and below), with room for an arrow to whatever is beside it. Null when the view is full.
export function freeSpot(graph, box, low, high) {
  const cx = (low.x + high.x - box.width) / 2, cy = (low.y + high.y - box.height) / 2;
  const stepX = box.width + 120, stepY = box.height + 80;
  const free = (x, y) =>
    !graph.states.some((s) => Math.abs(s.x - x) < box.width + 40 && Math.abs(s.y - y) < box.height + 40);
  // With a margin: the handle sticks out on the right.
  const inView = (x, y) =>
    x >= low.x + 10 && y >= low.y + 10 && x + box.width + 20 <= high.x && y + box.height + 10 <= high.y;
  const offsets = [];
  for (let i = -4; i <= 4; i++) for (let j = -4; j <= 4; j++) offsets.push([i, j]);
  const ring = ([i, j]) => Math.max(Math.abs(i), Math.abs(j));
  offsets.sort((a, b) => ring(a) - ring(b) || Math.abs(a[1]) - Math.abs(b[1]) || b[0] - a[0]);
  for (const [i, j] of offsets) {
    const x = cx + i * stepX, y = cy + j * stepY;
    if (free(x, y) && inView(x, y) && x >= 0 && y >= 0) return { x, y };
  }
  return null;
}
