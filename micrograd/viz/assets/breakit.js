"use strict";
// Break-it mode (micrograd.viz.mistakes): a choice of the classic backward bugs; for the one chosen,
// every Value's wrong gradient beside its right one in backward order, the first Value where they
// differ highlighted (in the table and in the graph) and one line saying why. Python computed every
// number (the "mg-breakit" data); this script only shows them, always as text (textContent).
(function () {
  const source = document.getElementById("mg-breakit");
  const K = source ? JSON.parse(source.textContent) : null;
  if (!K) return;  // a page without break-it data
  const $ = (id) => document.getElementById(id);
  const pane = $("graph"), NS = "http://www.w3.org/2000/svg";
  const MAX_ROWS = 300;  // a table of thousands of rows helps no one: the first ones, then a count
  let chosen = null;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The control, at the end of the step bar: "none" and one option per mistake.
  function control() {
    const select = el("select", { id: "mistake", title: "run a buggy backward beside the right one" });
    select.appendChild(el("option", { value: "" }, "none"));
    for (const m of K.mistakes) {
      const o = el("option", { value: m.name, title: m.refused || m.title }, m.name);
      if (m.refused) o.disabled = true;
      select.appendChild(o);
    }
    const label = el("label", { class: "mg-bk-control" }, "break it ");
    label.appendChild(select);
    // Beside the title, where the line has room: in the step bar it would wrap to a line of its
    // own at 1280 px, and take that height from the graph.
    const title = el("div", { class: "mg-bk-titlebar" }), h1 = document.querySelector("header h1");
    h1.replaceWith(title);
    title.append(h1, label);
    select.addEventListener("change", () => choose(select.value || null));
    return select;
  }

  function row(cells, tag, attrs) {
    const tr = el("tr", attrs || {});
    for (const [text, a] of cells) tr.appendChild(el(tag, a || {}, text));
    return tr;
  }

  // The panel: the mistake, why the first Value differs, and every Value's right and wrong gradient.
  function panel(m) {
    const box = el("section", { id: "breakit", "data-mg": "breakit" });
    // What changed (or why nothing did, and where it would) first: a panel below the graph is short
    // The words, then the table: one above the other beside the graph, side by side below it.
    const words = el("div", { class: "mg-bk-words" });
    words.appendChild(el("h2", {}, "Break it: " + m.name));
    const first = m.first === null ? "no gradient changes" : "first wrong: " + K.names[m.first];
    words.appendChild(el("p", { class: "mg-bk-first-line", "data-mg": "breakit-first" }, first));
    words.appendChild(el("p", { "data-mg": "breakit-reason" }, m.reason));
    if (m.first !== null)
      words.appendChild(el("p", { "data-mg": "breakit-boxes" }, "At the end of the backward pass, a " +
        "record marked grad ✗ shows what the buggy code prints; above its ring, what it should be."));
    if (m.example) words.appendChild(offer(m));
    box.appendChild(words);
    const rows = el("div", { class: "mg-bk-rows" });
    box.appendChild(rows);
    const tb = el("table", { "data-mg": "breakit-table" });
    tb.appendChild(row([["Value"], ["right"], ["wrong"]], "th"));
    for (const i of K.order.slice(0, MAX_ROWS)) {
      const wrong = m.wrong[i], right = K.right[i];
      const cls = i === m.first ? "mg-bk-wrong mg-bk-first" : wrong ? "mg-bk-wrong" : "";
      tb.appendChild(row([[K.names[i], { "data-mg": "bk-name" }],
                          [right[0], { "data-mg": "bk-right", title: right[1] }],
                          [(wrong || right)[0], { "data-mg": "bk-wrong", title: (wrong || right)[1] }]],
                         "td", { "data-mg": "breakit-row", "data-node": String(i), class: cls }));
    }
    rows.appendChild(tb);
    if (K.order.length > MAX_ROWS)
      rows.appendChild(el("p", { class: "muted" }, `and ${K.order.length - MAX_ROWS} more Values`));
    rows.appendChild(el("p", { class: "muted" }, m.title));
    rows.appendChild(el("p", { class: "muted", "data-mg": "breakit-order" }, K.simulates));
    return box;
  }

  // Where the mistake changes nothing here: one click opens a small graph where it does.
  function offer(m) {
    const p = el("p", { class: "mg-bk-offer" }, "See it on a graph where it does: ");
    const b = el("button", { type: "button", "data-mg": "breakit-example" }, m.example.code);
    b.title = "open " + m.name + " on this small graph (its own explorer, over this one)";
    b.addEventListener("click", () => openExample(m));
    p.appendChild(b);
    return p;
  }

  // The example's own explorer page (Python made it, in break-it mode on m), in a frame over the
  // whole page, under a bar whose button brings back the learner's graph.
  function openExample(m) {
    closeExample();
    const box = el("div", { id: "mg-bk-example", "data-mg": "breakit-example-page" });
    const bar = el("div", { class: "mg-bk-example-bar" });
    bar.appendChild(el("span", {}, `Example: ${m.name} on ${m.example.code}`));
    const back = el("button", { type: "button", "data-mg": "breakit-back" }, "back to your graph");
    back.addEventListener("click", closeExample);
    bar.appendChild(back);
    const frame = el("iframe", { sandbox: "allow-scripts", title: `${m.name} on ${m.example.code}` });
    frame.srcdoc = withOurAssets(m.example.page);  // a property, not markup: the page goes in as it is
    box.append(bar, frame);
    document.body.appendChild(box);
  }

  // Python left the example's style and scripts out: they are this page's own, the same files.
  // (Replaced by functions: a "$" in a script is text, not a replacement pattern.)
  function withOurAssets(page) {
    const [controls, own] = [...document.querySelectorAll("script:not([type])")].map((s) => s.textContent);
    const css = document.querySelector("head style").textContent;
    return page.replace("/*mg-shared:CSS*/", () => css).replace("/*mg-shared:CONTROLS_JS*/", () => controls)
      .replace("/*mg-shared:PAGE_JS*/", () => own);
  }

  function closeExample() {
    const open = $("mg-bk-example");
    if (open) open.remove();
  }

  // In the graph: a red ring around each Value whose gradient the mistake changes, its wrong
  // gradient written above it; the first one thicker. Drawn on whatever picture the pane shows.
  function mark() {
    const svg = pane.querySelector("svg");
    if (!svg) return;
    for (const g of svg.querySelectorAll("g.mg-bk-tag")) g.remove();
    if (!chosen) return;
    if (!svg.getBBox().width) return markLater();
    if (Object.keys(chosen.wrong).length) roomAbove(svg);
    const layer = svg.querySelector("g.graph") || svg;
    const drawn = {};
    for (const g of svg.querySelectorAll("g.node")) drawn[g.querySelector("title").textContent] = g;
    const inBoxes = {};  // closed box "g<j>" -> [how many wrong Values inside, holds the first?]
    for (const i in chosen.wrong) {
      const g = drawn["n" + i], first = Number(i) === chosen.first;
      // the record shows the wrong gradient at the end ("grad ✗ …"): the tag, what it should be
      const says = `should be ${K.right[i][0]}`;
      if (g) { layer.appendChild(tag(g, first, says, "n" + i)); continue; }
      const box = closedBox(Number(i), drawn);
      if (box === null) continue;
      const seen = inBoxes[box] || (inBoxes[box] = [0, false]);
      seen[0] += 1; seen[1] = seen[1] || first;
    }
    for (const box in inBoxes) {
      const [n, first] = inBoxes[box];
      layer.appendChild(tag(drawn[box], first, `${n} wrong inside`, box));
    }
  }

  // A picture not laid out yet (in a frame just opened, or a hidden one) has no boxes to ring, only
  // zeros: try again at the next frames (for a second or two), and when the window is resized.
  let tries = 0;
  function markLater() {
    if (tries++ < 120) requestAnimationFrame(mark);
  }
  window.addEventListener("resize", () => { tries = 0; mark(); });

  // The closed box drawn in the picture that holds Value i (its name, "g<j>"), if any.
  function closedBox(i, drawn) {
    if (!K.box) return null;
    for (let b = K.box[i]; b > 0; b = K.parent[b]) if (drawn["g" + b]) return "g" + b;
    return null;
  }

  // A red ring around g (the record "n<i>", or the closed box "g<j>": `name`), a line of text above.
  function tag(g, first, what, name) {
    const b = g.getBBox();
    const t = document.createElementNS(NS, "g");
    t.setAttribute("class", "mg-bk-tag" + (first ? " mg-bk-first" : ""));
    t.setAttribute("data-mg-for", name);
    const ring = document.createElementNS(NS, "rect");
    for (const [k, v] of [["x", b.x - 4], ["y", b.y - 4], ["width", b.width + 8], ["height", b.height + 8]])
      ring.setAttribute(k, String(v));
    ring.setAttribute("class", "mg-bk-ring");
    const text = document.createElementNS(NS, "text");
    // From the ring's left edge rightwards: a tag wider than its record stays in the picture.
    text.setAttribute("x", String(b.x - 4)); text.setAttribute("y", String(b.y - 8));
    text.textContent = (first ? "first ✗ " : "✗ ") + what;
    t.append(ring, text);
    return t;
  }

  // A tag goes above its Value, and a Value in the picture's top row has no room there: the
  // picture grows by a strip at the top (once), its drawn height with it, so nothing is squeezed.
  const STRIP = 16;
  function roomAbove(svg) {
    if (svg.getAttribute("data-mg-bk-room")) return;
    const vb = svg.viewBox.baseVal;
    if (!vb || !vb.height) return;
    const [x, y, w, h] = [vb.x, vb.y, vb.width, vb.height];
    const drawn = parseFloat(svg.style.height) || svg.getBoundingClientRect().height;
    svg.setAttribute("viewBox", `${x} ${y - STRIP} ${w} ${h + STRIP}`);
    if (drawn) svg.style.height = (drawn * (h + STRIP) / h) + "px";
    svg.setAttribute("data-mg-bk-room", "1");
  }

  function choose(name) {
    chosen = K.mistakes.find((m) => m.name === name && !m.refused) || null;
    const old = $("breakit");
    if (old) old.remove();
    if (chosen) document.querySelector("aside").prepend(panel(chosen));
    document.body.setAttribute("data-mg-breakit", chosen ? chosen.name : "none");
    mark();
    // At the end of the backward pass each record shows what the buggy code prints: its wrong
    // gradient, marked ✗ (the tag above says both), the others their gradient, right and wrong alike.
    const shown = {};
    for (const i in (chosen && chosen.wrong) || {}) shown[i] = chosen.wrong[i][0];
    document.dispatchEvent(new CustomEvent("mg-buggy-grads", { detail: chosen ? shown : null }));
    if (chosen) $("last").click();
    // The control and the panel changed the header's and the panel's size: lay the graph out again.
    document.dispatchEvent(new CustomEvent("mg-relayout"));
    reveal();
  }

  // Scroll the graph's own pane (not the page around it: a notebook) to show every ring if they
  // fit in it, else the first one.
  function reveal() {
    const rings = [...pane.querySelectorAll("g.mg-bk-tag")].map((g) => g.getBoundingClientRect());
    const first = pane.querySelector("g.mg-bk-tag.mg-bk-first");
    if (!rings.length || !first) return;
    const seen = pane.getBoundingClientRect();
    const all = { left: Math.min(...rings.map((r) => r.left)), right: Math.max(...rings.map((r) => r.right)),
                  top: Math.min(...rings.map((r) => r.top)), bottom: Math.max(...rings.map((r) => r.bottom)) };
    const fits = all.right - all.left < seen.width - 40 && all.bottom - all.top < seen.height - 40;
    const box = fits ? all : first.getBoundingClientRect();
    if (box.left < seen.left || box.right > seen.right) pane.scrollLeft += box.left - seen.left - 20;
    if (box.top < seen.top || box.bottom > seen.bottom) pane.scrollTop += box.top - seen.top - 20;
  }

  const select = control();
  // Opening a box replaces the pane's picture: mark the new one.
  new MutationObserver(mark).observe(pane, { childList: true });
  select.value = K.selected || "";
  choose(K.selected);
})();
