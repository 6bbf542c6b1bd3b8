"use strict";
(function () {
  const D = JSON.parse(document.getElementById("mg-data").textContent);
  const N = D.nodes.length, S = D.steps.length;
  const $ = (id) => document.getElementById(id);
  const pane = $("graph");
  // Frames: 0 = nothing computed; 1..N = forward, node i-1 appears; N+1..N+S = backward step;
  // N+S+1 = done (every gradient). The page opens at the start of the backward pass (frame N).
  const LAST = N + S + 1;
  // Values drawn among the first f of the forward order (micrograd.sum's start of 0 is not drawn,
  // nor counted: "forward: 3 of 7 Values" counts what the picture shows).
  const drawnBefore = [0];
  D.nodes.forEach((nd, i) => drawnBefore.push(drawnBefore[i] + (nd.hidden ? 0 : 1)));
  let frame = N, zoom = 1;
  // Break-it mode (breakit.js) names the Values its buggy backward gets wrong, with the gradient
  // that code prints: at the end of the backward pass their records show that one, marked ✗.
  let buggy = null;
  // A graph in boxes (explore(..., scopes=)): D.boxes[j] is box j (0: the whole graph), and the
  // pane shows the inside of one box, `view`; its own Values as records, the boxes in it closed.
  const B = D.boxes || null, TOP_SVG = pane.innerHTML;
  let view = 0;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The picture's parts, by the name Graphviz gives them: "n<i>" (node i's record), "n<i>_op"
  // (its op), "g<j>" (box j, closed); edges by the part they go into. Rebuilt for each view.
  let svg, groups, edgesInto, fields, drawnAs, inView, runEnd, around;

  function readFields(g, nd) {
    const texts = g.querySelectorAll("text");
    const data = texts[texts.length - 2], grad = texts[texts.length - 1];
    if (!data.textContent.startsWith("data ") || !grad.textContent.startsWith("grad "))
      throw new Error("unexpected record layout for node " + nd.id);
    // Each field's width, from the record's geometry (not from measuring text, which reads 0
    // while the page is not rendered yet, e.g. in a notebook's hidden output): the record's width
    // when its fields are one above the other (the separators horizontal), else between them.
    const points = (el_) => el_.getAttribute("points").trim().split(/\s+/).map((p) => p.split(",").map(Number));
    const lines = [...g.querySelectorAll("polyline")].map(points);
    const outline = points(g.querySelector("polygon")).map((p) => p[0]);
    const left = Math.min(...outline), right = Math.max(...outline);
    if (lines.length && lines[0][0][1] === lines[0][1][1])
      return { g: g, data: data, grad: grad, dataRoom: right - left - 6, gradRoom: right - left - 6 };
    const sepA = lines[lines.length - 2][0][0], sepB = lines[lines.length - 1][0][0];
    return { g: g, data: data, grad: grad, dataRoom: sepB - sepA - 6, gradRoom: right - sepB - 6 };
  }

  // What stands for node i in the view: its record ("n<i>") or the closed box holding it ("g<j>");
  // for a node outside the view, what its dashed stand-in is (if the view draws one).
  function standIn(i) {
    if (!B) return "n" + i;
    let b = D.nodes[i].box, inner = -1;
    while (!around.has(b)) { inner = b; b = B[b].parent; }
    return inner < 0 ? "n" + i : "g" + inner;
  }

  function bind() {
    svg = pane.querySelector("svg");
    drawOverview();
    groups = {}; edgesInto = {}; fields = {};
    for (const g of svg.querySelectorAll("g.node")) groups[g.querySelector("title").textContent] = g;
    for (const g of svg.querySelectorAll("g.edge")) {
      const t = g.querySelector("title").textContent.split("->");
      (edgesInto[t[1]] = edgesInto[t[1]] || []).push(g);
    }
    around = new Set();
    for (let b = view; B && b >= 0; b = B[b].parent) around.add(b);
    drawnAs = new Array(N); inView = new Array(N);
    for (let i = 0; i < N; i++) {
      drawnAs[i] = standIn(i);
      let b = B ? D.nodes[i].box : 0;
      while (B && b >= 0 && b !== view) b = B[b].parent;
      inView[i] = b === view && !D.nodes[i].hidden;  // micrograd.sum's start: not drawn, no stop
      const g = groups["n" + i];
      if (g) fields[i] = readFields(g, D.nodes[i]);
    }
    // A step of this view: a run of frames whose Value is drawn as the same thing (each frame, in
    // a graph without boxes); frames outside the view run together.
    const key = (f) => f <= 0 || f >= LAST ? "f" + f :
      f <= N ? "F" + (inView[f - 1] ? drawnAs[f - 1] : "out") :
      inView[D.steps[f - N - 1].node] ? "B" + drawnAs[D.steps[f - N - 1].node] :
      reaches(f - N - 1) ? "b" + f : "Bout";
    // Frames outside the view are no stop of → or ←: stepping follows the box you are in, one op
    // (or one closed box) at a time, and the scrub bar still reaches them.
    runEnd = new Array(LAST + 1);
    for (let f = 0; f <= LAST; f++)
      runEnd[f] = f === LAST || f === 0 || (!key(f).endsWith("out") && key(f) !== key(f + 1));
    for (const name in groups) {
      const g = groups[name], m = /^n(\d+)(_op)?$/.exec(name), box = /^g(\d+)$/.exec(name);
      if (m) g.addEventListener("click", () => pick(Number(m[1])));
      else if (box) g.addEventListener("click", () => open(Number(box[1])));
    }
  }

  // Whether backward step k, an op outside the view, passes gradient to a Value drawn here as a
  // record: such a step is a step of its own (a box of parameters holds nothing but such
  // operands), so → never skips it.
  function reaches(k) {
    return D.steps[k].contributions.some((c) => inView[c.operand] && drawnAs[c.operand][0] === "n");
  }

  // One step of the view: to the end of the next run of frames (d = 1) or of the one before.
  function stepFrom(f, d) {
    let g = Math.max(0, Math.min(LAST, f + d));
    while (g > 0 && g < LAST && !runEnd[g]) g += d;
    return g;
  }

  // Fields as [text element, room, prefix, value (null: blank), class]. Only the fields whose text
  // or class changes are written, and all of them before any is measured: on a graph of thousands
  // of Values, a step touches a few fields, and one layout serves every measurement.
  function setFields(updates) {
    const written = [];
    for (const [t, room, prefix, value, cls] of updates) {
      const text = value === null ? prefix : prefix + " " + value;
      const klass = value === null ? "mg-blank" : (cls || "");
      if (t.mgText === text && t.mgClass === klass) continue;
      t.mgText = text; t.mgClass = klass;
      t.textContent = text;
      t.setAttribute("class", klass);
      t.removeAttribute("textLength"); t.removeAttribute("lengthAdjust");
      if (value !== null && room > 0) written.push([t, room]);
    }
    const long = written.filter(([t, room]) => t.getComputedTextLength() > room);
    for (const [t, room] of long) {
      t.setAttribute("textLength", String(room)); t.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }

  // Legend, from the same colours as draw_dot.
  for (const role in D.colours) {
    const s = el("span", {}, role); s.style.setProperty("--c", D.colours[role]); $("legend").appendChild(s);
  }

  // Marks node i's stand-in in the view (its record, or the closed box holding it).
  function mark(i, cls) {
    const g = groups[drawnAs[i]];
    if (g) g.classList.add(cls);
    return g;
  }

  function clearMarks() {
    for (const g of svg.querySelectorAll(".mg-current, .mg-operand, .mg-flow"))
      g.classList.remove("mg-current", "mg-operand", "mg-flow");
    for (const t of svg.querySelectorAll(".mg-edge-label")) t.remove();
  }

  // Each contribution written on its edge (operand -> op), halfway along it; a reused operand
  // has one edge per use, taken in operand order.
  function labelEdges(st, nd) {
    const unused = [...(edgesInto[nd.id + "_op"] || [])];
    const NS = "http://www.w3.org/2000/svg";
    for (const c of st.contributions) {
      const from = drawnAs[c.operand] + "->";
      const i = unused.findIndex((e) => e.querySelector("title").textContent.startsWith(from));
      if (i < 0) continue;
      const path = unused.splice(i, 1)[0].querySelector("path");
      const p = path.getPointAtLength(path.getTotalLength() / 2);
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", "mg-edge-label");
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", String(p.x)); t.setAttribute("y", String(p.y - 4));
      t.setAttribute("text-anchor", "middle");
      t.textContent = c.contribution[0];
      g.appendChild(t);
      svg.querySelector("g.graph").appendChild(g);
      const box = t.getBBox();
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("x", String(box.x - 2)); r.setAttribute("y", String(box.y - 1));
      r.setAttribute("width", String(box.width + 4)); r.setAttribute("height", String(box.height + 2));
      r.setAttribute("rx", "3");
      g.insertBefore(r, t);
    }
  }

  function show(t) {
    frame = Math.max(0, Math.min(LAST, t));
    $("scrub").value = String(frame);
    clearMarks();
    // Data: in the forward pass, the first `shown` Values of the topological order.
    const shown = Math.min(frame, N);
    const updates = [];
    for (const i in fields)
      updates.push([fields[i].data, fields[i].dataRoom, "data", i < shown ? D.nodes[i].data[0] : null,
                    frame <= N && Number(i) === shown - 1 ? "mg-fresh" : ""]);
    // Gradients: blank until a step sets them; each shows its running sum after the steps so far.
    const k = frame - N - 1;  // index of the current backward step (-1: none yet)
    const grads = new Array(N).fill(null);
    const fresh = new Set();
    if (frame === LAST) {
      for (let i = 0; i < N; i++) grads[i] = D.nodes[i].grad[0];
      for (const i in buggy || {}) grads[i] = buggy[i];
    } else if (k >= 0) {
      grads[D.root] = D.seed[0];
      for (let j = 0; j <= k; j++)
        for (const c of D.steps[j].contributions) {
          grads[c.operand] = c.total[0];
          if (j === k) fresh.add(c.operand);
        }
    }
    for (const i in fields) {
      const wrong = frame === LAST && buggy && i in buggy;
      updates.push([fields[i].grad, fields[i].gradRoom, wrong ? "grad ✗" : "grad", grads[i],
                    wrong ? "mg-bk-grad" : fresh.has(Number(i)) ? "mg-fresh" : ""]);
    }
    setFields(updates);
    const panel = $("step");
    panel.replaceChildren();
    const at = frame === 0 || frame === LAST ? null : frame <= N ? shown - 1 : D.steps[k].node;
    if (at !== null && !inView[at] && !(k >= 0 && frame < LAST && reaches(k))) outsidePanel(panel, frame <= N);
    else if (at !== null && inView[at] && drawnAs[at][0] === "g") boxPanel(panel, Number(drawnAs[at].slice(1)), frame <= N, k);
    else if (frame <= N) forwardPanel(panel, shown);
    else if (frame === LAST) donePanel(panel);
    else backwardPanel(panel, k);
    $("where").textContent = $("where").title = frame < N ? `forward: ${drawnBefore[shown]} of ${drawnBefore[N]} Values` :
      frame === N ? `forward done · backward: 0 of ${S} steps` :
      frame === LAST ? `backward done: every gradient` : `backward: step ${k + 1} of ${S}`;
    $("prev").disabled = frame === 0; $("next").disabled = frame === LAST;
    revealStep();
    dodge();
  }

  function reveal(g) {
    if (!g) return;
    // Scroll the graph's own box only (scrollIntoView would scroll a notebook around the page too).
    const box = g.getBoundingClientRect(), seen = pane.getBoundingClientRect();
    if (box.left < seen.left || box.right > seen.right)
      pane.scrollLeft += (box.left + box.right) / 2 - (seen.left + seen.right) / 2;
    if (box.top < seen.top || box.bottom > seen.bottom)
      pane.scrollTop += (box.top + box.bottom) / 2 - (seen.top + seen.bottom) / 2;
  }

  // The current step whole where the pane has room for it: its node and its operands in view.
  // (reveal centres the node alone, and left the GPT loss's operand 0.25 under the pane's edge.)
  // Each way the step is larger than the pane, the node alone stays as reveal left it.
  function revealStep() {
    const marked = [...svg.querySelectorAll(".mg-current, .mg-operand")].map((g) => g.getBoundingClientRect());
    if (!marked.length) return;
    const p = pane.getBoundingClientRect();
    const seen = { left: p.left + pane.clientLeft, top: p.top + pane.clientTop };
    seen.right = seen.left + pane.clientWidth; seen.bottom = seen.top + pane.clientHeight;
    for (const [a, b, scroll] of [["left", "right", "scrollLeft"], ["top", "bottom", "scrollTop"]]) {
      const lo = Math.min(...marked.map((r) => r[a])), hi = Math.max(...marked.map((r) => r[b]));
      const room = seen[b] - seen[a] - (hi - lo);
      if (room < 0) continue;
      const margin = Math.min(16, room / 2);
      if (lo < seen[a] + margin) pane[scroll] -= seen[a] + margin - lo;
      else if (hi > seen[b] - margin) pane[scroll] += hi - (seen[b] - margin);
    }
  }

  // A step of the view that happens outside the box shown.
  function outsidePanel(panel, forward) {
    panel.appendChild(el("h2", {}, forward ? "Forward pass, outside this box" : "Backward pass, outside this box"));
    panel.appendChild(el("p", { "data-mg": "outside" }, "These steps compute Values outside " +
      `${boxName(view)}. Step on (→), or go up (u) to follow them.`));
  }

  // A step of the view that runs inside a closed box j: the whole box at once, forward (its
  // Values computed) or backward (the chain rule through it: the gradients its outputs brought
  // in, and what its inputs received).
  function boxPanel(panel, j, forward, k) {
    const bx = B[j], g = groups["g" + j];
    g.classList.add("mg-current");
    for (const e of edgesInto["g" + j] || []) e.classList.add("mg-flow");
    reveal(g);
    if (forward) {
      for (const i of bx.inputs) mark(i, "mg-operand");
      panel.appendChild(el("h2", { "data-mg": "box-step" }, `Forward through ${bx.name}`));
      panel.appendChild(el("p", {}, `It holds ${bx.size.toLocaleString("en")} Values, computed from ` +
        `${bx.inputs.length} input${bx.inputs.length === 1 ? "" : "s"} from outside it. Its outputs:`));
      const tb = el("table", { "data-mg": "box-outputs" });
      tb.appendChild(row(["output", "data"], "th"));
      for (const i of bx.outputs) if (i < frame) tb.appendChild(row([D.nodes[i].name, D.nodes[i].data[0]]));
      panel.appendChild(tb);
      panel.appendChild(el("p", { class: "muted" }, "Click the box to open it and step through its ops."));
      return;
    }
    const run = bx.runs.find((r) => r.first <= k && k <= r.last);
    for (const [i] of run.given) mark(i, "mg-operand");
    panel.appendChild(el("h2", { "data-mg": "box-step" }, `Backward through ${bx.name}`));
    panel.appendChild(el("p", { class: "muted" }, `Backward steps ${run.first + 1} to ${run.last + 1} ` +
      `of ${S}, all inside this box: the chain rule through it, op by op.`));
    const up = el("table", { "data-mg": "box-upstream" });
    up.appendChild(row(["output", "upstream gradient"], "th"));
    for (const [i, g_] of run.upstream) {
      const tr = row([D.nodes[i].name, g_[0]]); tr.lastChild.title = D.nodes[i].dname + " = " + g_[1];
      up.appendChild(tr);
    }
    panel.appendChild(up);
    const tb = el("table", { "data-mg": "box-given" });
    tb.appendChild(row(["input", "receives from the box", "grad so far"], "th"));
    for (const [i, c, total] of run.given) {
      const tr = row([D.nodes[i].name, c[0], total[0]]); tr.setAttribute("data-mg", "box-input");
      tr.children[1].title = c[1]; tr.children[2].title = D.nodes[i].dname + " = " + total[1];
      tb.appendChild(tr);
    }
    panel.appendChild(tb);
    panel.appendChild(el("p", { class: "muted" }, "What an input receives is the sum of what the box's " +
      "ops passed it. Click the box to open it and go through them one by one."));
  }

  function forwardPanel(panel, shown) {
    panel.appendChild(el("h2", {}, "Forward pass"));
    if (shown === 0) {
      panel.appendChild(el("p", {}, "Nothing computed yet. Step forward (→) to compute the Values " +
                                    "in topological order, operands first."));
      return;
    }
    const i = shown - 1, nd = D.nodes[i];
    reveal(mark(i, "mg-current"));
    if (nd.operands.length) {
      groups[nd.id + "_op"].classList.add("mg-current");
      for (const e of edgesInto[nd.id + "_op"] || []) e.classList.add("mg-flow");
      for (const o of nd.operands) mark(o, "mg-operand");
      panel.appendChild(el("p", { class: "expr", "data-mg": "fwd-expr" },
                           `${nd.name} = ${nd.expr} = ${nd.data[0]}`));
      const tb = el("table");
      tb.appendChild(row(["operand", "data"], "th"));
      for (const o of nd.operands) tb.appendChild(row([D.nodes[o].name, D.nodes[o].data[0]]));
      panel.appendChild(tb);
    } else {
      panel.appendChild(el("p", { class: "expr", "data-mg": "fwd-expr" }, `${nd.name} = ${nd.data[0]}`));
      panel.appendChild(el("p", { class: "muted" }, `a leaf (${nd.role}): its value is given, not computed`));
    }
    if (shown === N)
      panel.appendChild(el("p", {}, `The forward pass is done: ${D.nodes[D.root].name} = ` +
                                    `${D.nodes[D.root].data[0]}. Step on (→) for the backward pass.`));
  }

  function row(cells, tag, attrs) {
    const tr = el("tr", attrs || {});
    cells.forEach((c, i) => tr.appendChild(el(tag || "td", {}, c)));
    return tr;
  }

  function backwardPanel(panel, k) {
    const st = D.steps[k], nd = D.nodes[st.node];
    panel.appendChild(el("h2", {}, `Backward step ${k + 1} of ${S}`));
    if (!inView[st.node])
      panel.appendChild(el("p", { class: "muted", "data-mg": "reaches" }, `This op is outside ` +
        `${boxName(view)}; it passes gradient to the Values here that it read.`));
    const current = mark(st.node, "mg-current");
    groups[nd.id + "_op"]?.classList.add("mg-current");
    for (const e of edgesInto[nd.id + "_op"] || []) e.classList.add("mg-flow");
    for (const c of st.contributions) mark(c.operand, "mg-operand");
    labelEdges(st, nd);
    reveal(current || st.contributions.map((c) => inView[c.operand] && groups[drawnAs[c.operand]]).find(Boolean));
    panel.appendChild(el("p", { class: "expr", "data-mg": "node" },
                         `${nd.name} = ${nd.expr}  data ${nd.data[0]}`));
    panel.appendChild(el("p", { class: "expr", "data-mg": "upstream" },
      `upstream ${nd.dname} = ${st.upstream[0]}` + (st.node === D.root ? " (the seed)" : "")));
    if (!st.has_rule) {
      panel.appendChild(el("p", { "data-mg": "norule" },
                           "(built by hand, without a derivative rule: gradients stop here)"));
      return;
    }
    panel.appendChild(el("p", { class: "muted" },
                         "Each operand receives local derivative × upstream; contributions add up."));
    const tb = el("table", { "data-mg": "contributions" });
    const head = ["operand", "local", "× upstream", "= contribution", "grad so far"];
    tb.appendChild(row(head, "th"));
    for (const c of st.contributions) {
      const o = D.nodes[c.operand];
      const tr = el("tr", { "data-mg": "contribution" });
      tr.appendChild(el("td", { "data-mg": "operand" }, o.name));
      tr.appendChild(el("td", { "data-mg": "local", title: c.dlocal + " = " + c.local[1] }, c.local[0]));
      tr.appendChild(el("td", { "data-mg": "up", title: st.upstream[1] }, "× " + st.upstream[0]));
      tr.appendChild(el("td", { "data-mg": "contrib", title: c.contribution[1] }, "= " + c.contribution[0]));
      tr.appendChild(el("td", { "data-mg": "total", title: o.dname + " = " + c.total[1] }, c.total[0]));
      tb.appendChild(tr);
    }
    panel.appendChild(tb);
    const lines = el("div", { class: "expr muted" });
    for (const c of st.contributions) {
      const o = D.nodes[c.operand];
      const line = el("div", { "data-mg": "notation" });
      line.append(el("span", { "data-mg": "dlocal" }, c.dlocal), ` = ${c.local[0]}; `,
                  el("span", { "data-mg": "dname" }, o.dname), ` so far ${c.total[0]}`);
      lines.appendChild(line);
    }
    panel.appendChild(lines);
  }

  function donePanel(panel) {
    const root = D.nodes[D.root];
    panel.appendChild(el("h2", {}, "Backward pass done"));
    panel.appendChild(el("p", {}, `Gradients of ${root.name} with respect to the leaves:`));
    const tb = el("table", { "data-mg": "leaves" });
    tb.appendChild(row(["leaf", "data", "gradient"], "th"));
    D.nodes.forEach((nd, i) => {
      if (nd.operands.length || i === D.root || nd.hidden) return;
      const tr = row([nd.name, nd.data[0], nd.grad[0]]);
      tr.setAttribute("data-mg", "leaf");
      tb.appendChild(tr);
    });
    panel.appendChild(tb);
  }

  function pick(i) {
    for (const g of svg.querySelectorAll(".mg-picked")) g.classList.remove("mg-picked");
    const nd = D.nodes[i];
    if (fields[i]) fields[i].g.classList.add("mg-picked");
    const box = $("info");
    box.replaceChildren(el("h2", {}, "Node " + nd.name));
    const dl = el("dl", { "data-mg": "info" });
    const add = (k, v) => {
      dl.appendChild(el("dt", {}, k));
      dl.appendChild(el("dd", { "data-mg": "info-" + k }, v));
    };
    add("label", nd.label || "(none: shown as " + nd.name + ")");
    add("role", nd.role);
    add("op", nd.operands.length ? `${nd.op || "?"}: ${nd.name} = ${nd.expr}` : "(a leaf)");
    add("data", nd.data[1]);
    add("grad", `${nd.dname} = ${nd.grad[1]}`);
    if (nd.operands.length) add("rule", nd.rule);
    box.appendChild(dl);
    // A sum or a dot: the same graph with it drawn as the lecture's chain of * and + (or back)
    const other = D.other;
    if (other && String(i) in other.nodes) {
      const b = el("button", { "data-mg": "chain", type: "button" }, other.button);
      b.addEventListener("click", () => swap(other.nodes[String(i)]));
      box.appendChild(b);
    }
  }

  // Show the page's other view (D.other.html: the same graph, its sums and dots drawn the other
  // way), node j picked there; a page that is itself the other view goes back by loading again.
  function swap(j) {
    controls.pause();
    resized.disconnect();
    if (D.other.html === null) { location.reload(); return; }
    const html = D.other.html.replace('id="mg-data">{"pick":-1,', `id="mg-data">{"pick":${Number(j)},`);
    document.open();
    document.write(html);
    document.close();
  }
  function boxName(j) { return j === 0 ? "the whole graph" : B[j].name; }

  // Open box j: the pane shows its inside; the path to it, each step clickable, above the graph.
  function open(j) {
    view = j;
    pane.innerHTML = j === 0 ? TOP_SVG : B[j].svg;
    pane.scrollLeft = 0; pane.scrollTop = 0;
    bind();
    const crumbs = $("crumbs");
    crumbs.replaceChildren();
    const path = [];
    for (let b = j; b >= 0; b = B[b].parent) path.unshift(b);
    path.forEach((b, n) => {
      if (n) crumbs.append(" › ");
      const a = el("button", { "data-mg": "crumb", class: b === j ? "here" : "" }, boxName(b));
      a.addEventListener("click", () => open(b));
      crumbs.appendChild(a);
    });
    if (j) {
      const bx = B[j], box = $("info");
      box.replaceChildren(el("h2", {}, "Box " + bx.name));
      const dl = el("dl", { "data-mg": "box-info" });
      const add = (k, v) => { dl.appendChild(el("dt", {}, k)); dl.appendChild(el("dd", {}, v)); };
      if (bx.detail) add("what", bx.detail);
      add("Values", bx.size.toLocaleString("en"));
      const some = (list) => list.slice(0, 12).map((i) => D.nodes[i].name).join(", ") +
        (list.length > 12 ? ` and ${list.length - 12} more` : "") || "(none)";
      add("inputs", some(bx.inputs));
      add("outputs", some(bx.outputs));
      box.appendChild(dl);
    }
    fit();
    show(frame);
  }

  function setZoom(z) {
    const vb = svg.viewBox.baseVal;
    if (z === null) z = Math.min(1.5, (pane.offsetWidth - 20) / (vb.width * 4 / 3),
                                 (pane.offsetHeight - 20) / (vb.height * 4 / 3));
    zoom = Math.max(0.01, Math.min(4, z));  // fit shows even a GPT step whole (as a map)
    svg.style.width = (vb.width * zoom * 4 / 3) + "px"; svg.style.height = (vb.height * zoom * 4 / 3) + "px";
    placeLens();
  }

  // The overview: the whole picture drawn small (its shapes, no text) in the graph's corner, the
  // part in view as a rectangle on it; a click or a drag there brings that part into view. Shown
  // while the picture is larger than the pane (and not hidden by o).
  const MAP = 180;  // the overview's longer side, in px
  const overview = $("overview"), map = $("overview-map"), lens = $("overview-view");
  let overviewOff = false;
  function drawOverview() {
    const vb = svg.viewBox.baseVal, k = MAP / Math.max(vb.width, vb.height, 1);
    map.width = Math.max(1, Math.round(vb.width * k)); map.height = Math.max(1, Math.round(vb.height * k));
    map.style.width = map.width + "px"; map.style.height = map.height + "px";
    const ctx = map.getContext("2d"), g = svg.querySelector("g.graph");
    const t = g && g.transform.baseVal.consolidate(), m = t ? t.matrix : { a: 1, b: 0, c: 0, d: 1, e: 0, f: 0 };
    ctx.setTransform(k * m.a, k * m.b, k * m.c, k * m.d, k * (m.e - vb.x), k * (m.f - vb.y));
    ctx.lineWidth = 1 / k; ctx.strokeStyle = "#adb5bd";
    for (const e of svg.querySelectorAll("g.edge > path")) ctx.stroke(new Path2D(e.getAttribute("d") || ""));
    ctx.strokeStyle = "#495057";
    for (const shape of svg.querySelectorAll("g.node > polygon, g.node > ellipse, g.node > rect")) {
      const a = (n) => Number(shape.getAttribute(n));
      ctx.beginPath();
      if (shape.tagName === "ellipse") ctx.ellipse(a("cx"), a("cy"), a("rx"), a("ry"), 0, 0, 2 * Math.PI);
      else if (shape.tagName === "rect") ctx.rect(a("x"), a("y"), a("width"), a("height"));
      else shape.getAttribute("points").trim().split(/\s+/).forEach((pt, n) => {
        const [x, y] = pt.split(",").map(Number);
        if (n) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      });
      ctx.closePath();
      const fill = shape.getAttribute("fill");
      ctx.fillStyle = fill && fill !== "none" ? fill : "#fff";
      ctx.fill(); ctx.stroke();
    }
  }
  // The rectangle: the part of the picture the pane shows, on the overview's scale.
  function placeLens() {
    const big = pane.scrollWidth > pane.clientWidth + 1 || pane.scrollHeight > pane.clientHeight + 1;
    overview.hidden = overviewOff || !big;
    if (overview.hidden) return;
    const s = svg.getBoundingClientRect(), p = pane.getBoundingClientRect();
    const fx = map.width / s.width, fy = map.height / s.height;
    const left = p.left + pane.clientLeft - s.left, top = p.top + pane.clientTop - s.top;
    const x0 = Math.max(0, left * fx), x1 = Math.min(map.width, (left + pane.clientWidth) * fx);
    const y0 = Math.max(0, top * fy), y1 = Math.min(map.height, (top + pane.clientHeight) * fy);
    Object.assign(lens.style, { left: x0 + "px", top: y0 + "px",
                                width: Math.max(4, x1 - x0) + "px", height: Math.max(4, y1 - y0) + "px" });
  }
  // The overview goes to the corner of the pane where it covers least of the current step (its
  // node, op and operands, as drawn now): in a graph drawn left to right the output, where the
  // backward pass starts, is at the right, under the overview's first corner.
  const CORNERS = [["right", "bottom"], ["left", "bottom"], ["right", "top"], ["left", "top"]];
  function dodge() {
    if (overview.hidden) return;
    // The step's own node counts far more than an operand: it must stay clear where it can
    const marked = [...svg.querySelectorAll(".mg-current, .mg-operand")].map((g) =>
      [g.getBoundingClientRect(), g.classList.contains("mg-current") ? 1000 : 1]);
    let best = null;
    for (const [x, y] of CORNERS) {
      put(x, y);
      const o = overview.getBoundingClientRect();
      const covered = marked.reduce((sum, [r, k]) => sum + k * Math.max(0, Math.min(o.right, r.right) -
        Math.max(o.left, r.left)) * Math.max(0, Math.min(o.bottom, r.bottom) - Math.max(o.top, r.top)), 0);
      if (best === null || covered < best[0]) best = [covered, x, y];
      if (!covered) break;
    }
    put(best[1], best[2]);
  }
  function put(x, y) {  // the other two sides "auto", not the stylesheet's right and bottom
    overview.style.left = overview.style.right = overview.style.top = overview.style.bottom = "auto";
    overview.style[x] = overview.style[y] = "18px";
  }
  // Scroll the pane so that the point of the overview under the pointer is in its middle.
  function lookAt(e) {
    const r = map.getBoundingClientRect(), s = svg.getBoundingClientRect(), p = pane.getBoundingClientRect();
    const x = s.left + (e.clientX - r.left) / r.width * s.width, y = s.top + (e.clientY - r.top) / r.height * s.height;
    pane.scrollLeft += x - (p.left + pane.clientLeft + pane.clientWidth / 2);
    pane.scrollTop += y - (p.top + pane.clientTop + pane.clientHeight / 2);
  }
  overview.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    overview.setPointerCapture(e.pointerId);
    lookAt(e);
  });
  overview.addEventListener("pointermove", (e) => { if (e.buttons & 1) lookAt(e); });
  pane.addEventListener("scroll", placeLens, { passive: true });

  // Fitted to the pane, but never below the zoom at which the text (11 pt in the SVG, 4/3 px
  // per pt) is 12 px tall: a larger graph opens readable, and scrolls.
  const READABLE = 12 / (11 * 4 / 3);
  function fit() {
    const vb = svg.viewBox.baseVal;
    setZoom(Math.max(READABLE, Math.min(2, (pane.offsetWidth - 20) / (vb.width * 4 / 3),
                                           (pane.offsetHeight - 20) / (vb.height * 4 / 3))));
  }

  // Whether the graph fits the pane at readable text, given how the pane is laid out now. (The
  // pane's offset size, not its client size: scroll bars the picture has now do not count.)
  // The share of the graph's area in view at readable text, given how the pane is laid out now.
  function shownReadable() {
    const vb = svg.viewBox.baseVal, main = document.querySelector("main");
    const high = main.classList.contains("mg-below") ? main.clientHeight * (1 - PANEL_SHARE) : pane.offsetHeight;
    const w = vb.width * 4 / 3 * READABLE, h = vb.height * 4 / 3 * READABLE;
    return Math.min(1, (pane.offsetWidth - 20) / w) * Math.min(1, (high - 20) / h);
  }

  // Below the graph, the panel takes PANEL_SHARE of the height where the graph stays readable
  // then, and can shrink to PANEL_MIN px to leave the graph its height.
  const PANEL_MIN = 150, PANEL_SHARE = 0.34;
  function fitsReadable() {
    const vb = svg.viewBox.baseVal, main = document.querySelector("main");
    const high = main.classList.contains("mg-below") ? main.clientHeight - PANEL_MIN : pane.offsetHeight;
    return Math.min((pane.offsetWidth - 20) / (vb.width * 4 / 3),
                    (high - 20) / (vb.height * 4 / 3)) >= READABLE;
  }

  // The step panel beside the graph, or below it where only that makes the whole graph fit at
  // readable text (a wide graph: the lecture's neuron at 1280×800), or where the window is too
  // narrow for both side by side (a notebook's output); `below` forces one or the other.
  // The window's size, and whether the page was laid out (the pane measured), when arranged.
  const arrangedFor = () => `${innerWidth}x${innerHeight} ${pane.offsetWidth > 0}`;
  let arranged = null;
  function arrange(below) {
    arranged = arrangedFor();
    const main = document.querySelector("main");
    main.querySelector("aside").style.height = "";  // measured at its own size, then sized
    if (below === undefined) {
      main.classList.remove("mg-below");
      if (!fitsReadable()) {
        const beside = shownReadable();
        main.classList.add("mg-below");
        // Neither fits: the layout that shows more of the graph at readable text wins
        if (!fitsReadable() && window.innerWidth >= 900 && beside >= shownReadable())
          main.classList.remove("mg-below");
      }
    } else main.classList.toggle("mg-below", below);
    sizePanel(main);
    fit();
    show(frame);  // re-centres the current step in the pane's new shape, the overview off it
  }

  // Below the graph, the panel takes what the graph leaves: the graph gets the height it needs at
  // the scale that fits its width (at most 1, at least readable), the panel the rest, from its
  // own 34% up to 60% of the page; a short panel is a scroll box too small to read.
  function sizePanel(main) {
    const aside = main.querySelector("aside");
    aside.style.height = "";
    if (!main.classList.contains("mg-below")) return;
    const vb = svg.viewBox.baseVal;
    const high = main.clientHeight, tall = vb.height * 4 / 3;
    const z = Math.max(READABLE, Math.min(1, (pane.offsetWidth - 20) / (vb.width * 4 / 3),
                                          (high * (1 - PANEL_SHARE) - 20) / tall));
    const rest = high - (tall * z + 20);  // the pane's padding
    if (rest >= PANEL_MIN) aside.style.height = Math.min(rest, high * 0.6) + "px";
  }

  // Search by name: the Values whose name holds the text typed (at most 30 listed), each a
  // button that opens the box it is in (if any), picks it and scrolls it into view.
  function find(text) {
    const found = $("found"), q = text.trim().toLowerCase();
    found.replaceChildren();
    if (!q) return;
    const hits = [];
    for (let i = 0; i < N && hits.length <= 30; i++) if (D.nodes[i].name.toLowerCase().includes(q)) hits.push(i);
    if (!hits.length) found.appendChild(el("p", { class: "muted" }, "no Value has that in its name"));
    for (const i of hits.slice(0, 30)) {
      const b = el("button", { "data-mg": "hit", title: D.nodes[i].role }, D.nodes[i].name);
      b.addEventListener("click", () => goTo(i));
      found.appendChild(b);
    }
    if (hits.length > 30) found.appendChild(el("span", { class: "muted" }, " and more: type more of the name"));
  }

  function goTo(i) {
    if (B && !(groups["n" + i] && inView[i])) open(D.nodes[i].box);
    pick(i);
    reveal(groups[drawnAs[i]]);
  }

  const controls = mgControls({
    show, frame: () => frame, last: LAST, step: stepFrom,
    keys: ({go, speed}) => ({
      f: () => go(0), b: () => go(N), "+": () => speed(1), "=": () => speed(1), "-": () => speed(-1),
      "0": () => setZoom(null), u: () => { if (B && view > 0) open(B[view].parent); },
      p: () => arrange(!document.querySelector("main").classList.contains("mg-below")),
      "/": () => $("find").focus(), o: () => { overviewOff = !overviewOff; placeLens(); },
    }),
  });
  $("side").addEventListener("click", () => arrange(!document.querySelector("main").classList.contains("mg-below")));
  $("find").addEventListener("input", () => find($("find").value));
  $("find").addEventListener("keydown", (e) => {
    e.stopPropagation();  // typing a name is not stepping
    if (e.key === "Enter") $("found").querySelector("button")?.click();
  });
  // Embedded (a notebook's output frame), the page offers the whole screen: its text stays
  // readable where the output is narrow. The frame must allow it (Explorer's iframe does).
  if (window.self !== window.top && document.fullscreenEnabled) {
    $("full").hidden = false;
    $("full").addEventListener("click", () => document.documentElement.requestFullscreen());
    document.addEventListener("fullscreenchange", () => arrange());
  }
  // A page that changes size lays the graph out again for it, the current step in view. A
  // notebook's output frame can run this script before the frame is laid out (every box then
  // measures 0, in the docs' notebook pages about one load in six, and no resize event follows
  // when it is), and it can be resized by hand. The panel's own moves (p) leave the window alone.
  const resized = new ResizeObserver(() => { if (arrangedFor() !== arranged) arrange(); });
  resized.observe(pane);
  // Break-it mode tells the page what it changed: the wrong gradients to show ("mg-buggy-grads",
  // {i: text} or null), and a header or panel of another size ("mg-relayout").
  document.addEventListener("mg-buggy-grads", (e) => { buggy = e.detail; show(frame); });
  document.addEventListener("mg-relayout", () => arrange());
  $("fwd").addEventListener("click", () => controls.go(0));
  $("bwd").addEventListener("click", () => controls.go(N));
  $("zoomin").addEventListener("click", () => setZoom(zoom * 1.25));
  $("zoomout").addEventListener("click", () => setZoom(zoom / 1.25));
  $("zoomfit").addEventListener("click", () => setZoom(null));
  if (B) {
    $("crumbs").hidden = false;
    open(0);
  } else {
    bind();
  }
  arrange();
  if ((D.pick ?? -1) >= 0) goTo(D.pick);  // the node whose button opened this view
  // Once loaded, the current step is brought into view again: a frame (a notebook's output) is
  // scrolled back to its start when it finishes loading.
  window.addEventListener("load", () => { reveal(svg.querySelector(".mg-current")); revealStep(); dodge(); },
                          { once: true });
  document.body.setAttribute("data-mg-ready", "1");
})();
