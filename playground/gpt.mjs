// The playground's GPT tab: karpathy's microgpt (nn.GPT) learning first names in its own worker
// (gpt-worker.mjs), with its loss curve, samples at a chosen temperature, names added to the
// training set, the attention of a typed name and one step opened in the explorer.
// The tab's markup is the constant below; every name, sample and message goes in as text
// (textContent, canvas fillText), never as markup. ?tab=gpt opens the page on this tab.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { ready: false, steps: 0, losses: [], samples: [], names: 0, mode: null, playing: false,
                stepsPerSecond: null, samplesVersion: 0, added: null, attention: null, explored: null,
                readyMs: null, numpy: null, error: null, bootFrom: null, ladder: null, ladderProgress: null };
window.mgGpt = state;  // read by the browser tests

const MARKUP = `
<h2 id="gpt-heading">microgpt <small>karpathy's GPT as <code>nn.GPT</code> (1 layer, 16 dimensions, 4 heads,
  4,192 parameters) learns US census first names, one name a step, Adam, in its own Python in a Web Worker</small></h2>
<div class="gpt-row">
  <div class="gpt-col">
    <div class="bar">
      <button id="gpt-play" disabled>▶ Train</button>
      <button id="gpt-explore" disabled title="the next training step, opened in the explorer below">Explore this step</button>
      <span id="gpt-status" class="muted">loading Python…</span>
    </div>
    <table class="stats">
      <tr><th>steps</th><td id="gpt-steps">0</td><th>loss</th><td id="gpt-loss">–</td></tr>
      <tr><th>steps / s</th><td id="gpt-sps">–</td><th>engine</th><td id="gpt-mode">–</td></tr>
      <tr><th>names</th><td id="gpt-names">–</td><th>next name</th><td id="gpt-next">–</td></tr>
    </table>
    <canvas id="gpt-losses" width="520" height="220" aria-label="the loss of every step and its running mean"></canvas>
    <form id="gpt-add-form" class="bar">
      <label for="gpt-add">Add a name to the training set</label>
      <input id="gpt-add" autocomplete="off" spellcheck="false" maxlength="200">
      <button id="gpt-add-button" disabled>Add</button>
    </form>
    <p id="gpt-add-message" class="gpt-message" role="status"></p>
  </div>
  <div class="gpt-col">
    <h3>Samples <small>new names drawn from the model, redrawn every few steps</small></h3>
    <div class="bar">
      <label for="gpt-temp">temperature</label>
      <input id="gpt-temp" type="range" min="0.1" max="2" step="0.1" value="0.5">
      <output id="gpt-temp-value" for="gpt-temp">0.5</output>
    </div>
    <ol id="gpt-samples" class="gpt-samples"></ol>
    <form id="gpt-attn-form" class="bar">
      <label for="gpt-attn">Attention of a name</label>
      <input id="gpt-attn" autocomplete="off" spellcheck="false" maxlength="200" value="isabella">
      <button id="gpt-attn-button" disabled>Show</button>
    </form>
    <p id="gpt-attn-message" class="gpt-message" role="status"></p>
    <canvas id="gpt-attention" width="560" height="180" aria-label="the attention weights of each head"></canvas>
  </div>
</div>
<h3>Explorer <small id="gpt-explorer-title" class="muted">press “Explore this step”</small></h3>
<iframe id="gpt-explorer" title="one training step of the GPT in the explorer" sandbox="allow-scripts"></iframe>
<h3>Speed ladder <small>one training step of this model, the same weights and the same first name, on each
  rung from a scalar engine to a compiled, batched replay, timed in this page</small></h3>
<div class="bar">
  <button id="gpt-ladder" disabled>Time the ladder</button>
  <span id="gpt-ladder-status" class="muted" role="status">training pauses while the rungs take turns</span>
</div>
<p class="muted">Your own engine is a rung too: the “Build micrograd” tab's finale shows its steps / s beside the built-in Value's.</p>
<table id="gpt-ladder-table" class="gpt-ladder" hidden>
  <thead><tr><th>rung</th><th>time per name</th><th id="gpt-ladder-speedup">speed-up</th>
    <th>first loss, against nn.GPT eager</th><th>what made it faster</th></tr></thead>
  <tbody></tbody>
</table>
`;

// ---- the tab ---------------------------------------------------------------------------------

let worker = null;

// The tabs with a section of their own (the lab's is lab.mjs's); every other section is the engine tab's.
const OWN = { gpt: "gpt-section", lab: "lab-section" };

function showTab(name, push) {
  const gpt = name === "gpt";
  for (const section of document.querySelectorAll("main > section")) {
    section.hidden = OWN[name] ? section.id !== OWN[name] : Object.values(OWN).includes(section.id);
  }
  for (const button of document.querySelectorAll("#tabs [data-tab]")) {
    button.setAttribute("aria-selected", String(button.dataset.tab === name));
  }
  if (push) {
    const url = new URL(location.href);
    if (OWN[name]) url.searchParams.set("tab", name); else url.searchParams.delete("tab");
    history.replaceState(null, "", url);
  }
  if (gpt && worker === null) start();  // its Python starts only once the tab is opened
  // Left for the other tab: training stops, not to take the processor from the engine's own training.
  if (!gpt && worker !== null) worker.postMessage({ type: "pause" });
  document.dispatchEvent(new CustomEvent("playground-tab", { detail: name }));
}

function start() {
  $("gpt-section").insertAdjacentHTML("beforeend", MARKUP);  // a constant: nothing of anyone's in it
  wire();
  drawLosses();
  worker = new Worker("gpt-worker.mjs", { type: "module" });
  worker.onmessage = (e) => onMessage(e.data);
  worker.onerror = (e) => status("Python failed to start: " + (e.message || "see the console"), true);
  worker.postMessage({ type: "init", wheel: document.body.dataset.wheel, snapshot: document.body.dataset.snapshot });
}

function status(text, bad = false) {
  $("gpt-status").textContent = text;
  $("gpt-status").classList.toggle("gpt-bad", bad);
}

// ---- the worker's messages -------------------------------------------------------------------

function onMessage(msg) {
  switch (msg.type) {
    case "ready": return ready(msg);
    case "state": return update(msg);
    case "added": state.added = msg; return said("gpt-add-message", msg);
    case "attention": state.attention = msg; said("gpt-attn-message", msg); drawAttention(msg); return;
    case "exploring": return status("making the explorer's page of one step…");
    case "explored": return explored(msg);
    case "ladder-progress": state.ladderProgress = msg.text; return ladderStatus(msg.text);
    case "ladder": return showLadder(msg);
    case "failed": return failed(msg.error, msg.stack);
  }
}

// The worker's Python raised: the last line of its traceback (Python's own message) on the page, the
// whole traceback and where the worker called Python in the console.
function failed(error, stack) {
  state.error = String(error);
  const lines = state.error.trim().split("\n");
  status(`error: ${lines[lines.length - 1]} (the console has the traceback)`, true);
  console.error(error, stack);
  for (const id of ["gpt-explore", "gpt-add-button", "gpt-attn-button", "gpt-ladder"]) $(id).disabled = false;
}

function ready(msg) {
  state.ready = true; state.readyMs = performance.now(); state.mode = msg.mode; state.numpy = msg.numpy;
  state.bootFrom = msg.from;  // "snapshot" or "start", as boot.mjs says
  $("gpt-mode").textContent = msg.mode === "compiled" ? "compiled (numpy)" : "eager";
  $("gpt-mode").title = msg.numpy;
  status(`Python ready in ${(state.readyMs / 1000).toFixed(1)} s · ${msg.mode} (${msg.numpy})`);
  for (const id of ["gpt-play", "gpt-explore", "gpt-add-button", "gpt-attn-button", "gpt-ladder"]) $(id).disabled = false;
  // The tab is opened to watch it learn: it starts at once, unless the visitor has left the tab meanwhile.
  if (!$("gpt-section").hidden) worker.postMessage({ type: "play" });
  worker.postMessage({ type: "attention", name: $("gpt-attn").value });
}

function update(msg) {
  state.losses.push(...msg.losses);
  Object.assign(state, { steps: msg.steps, names: msg.names, playing: msg.playing,
                         stepsPerSecond: msg.stepsPerSecond, temperature: msg.temperature });
  $("gpt-steps").textContent = String(msg.steps);
  const last = state.losses[state.losses.length - 1];
  $("gpt-loss").textContent = last === undefined ? "–" : last.toFixed(3);
  $("gpt-sps").textContent = msg.stepsPerSecond === null ? "–" : msg.stepsPerSecond.toFixed(1);
  $("gpt-names").textContent = String(msg.names);
  $("gpt-next").textContent = msg.next;
  $("gpt-play").textContent = msg.playing ? "Pause" : "▶ Train";
  $("gpt-play").classList.toggle("on", msg.playing);
  if (msg.samples) {
    state.samples = msg.samples; state.samplesVersion += 1;
    $("gpt-samples").replaceChildren(...msg.samples.map((s) => {
      const li = document.createElement("li");
      li.textContent = s || "(empty: BOS first)";
      return li;
    }));
  }
  drawLosses();
}

// A reply with ``ok`` and ``message``: the message shown as text, marked when it is a refusal.
function said(id, msg) {
  $(id).textContent = msg.message;
  $(id).classList.toggle("gpt-bad", !msg.ok);
}

function explored(msg) {
  state.explored = { ok: msg.ok, title: msg.title || null, ms: msg.ms, message: msg.message };
  $("gpt-explore").disabled = false;
  if (!msg.ok) { status(msg.message, true); return; }
  $("gpt-explorer").srcdoc = msg.html;
  $("gpt-explorer-title").textContent = `${msg.title}: loss ${msg.loss.toFixed(4)} (made in ${(msg.ms / 1000).toFixed(1)} s)`;
  status(state.playing ? "training" : "paused");
  $("gpt-explorer").scrollIntoView({ block: "nearest" });
}

// ---- drawing ---------------------------------------------------------------------------------

const WINDOW = 50;  // steps in the running mean: one name's loss alone is mostly noise

// ---- the speed ladder -----------------------------------------------------------------------

function ladderStatus(text) {
  $("gpt-ladder-status").textContent = text;
}

// The rows come from Python (benchmarks.ladder.rows) as text, and go in as text.
function showLadder(msg) {
  state.ladder = msg;
  $("gpt-ladder").disabled = false;
  $("gpt-ladder-speedup").textContent = msg.first ? `speed-up over ${msg.first}` : "speed-up";
  const body = $("gpt-ladder-table").tBodies[0];
  body.replaceChildren();
  for (const row of msg.rows) {
    const tr = body.insertRow();
    if (row.time === "absent") tr.className = "absent";
    for (const key of ["title", "time", "speedup", "loss", "why"]) tr.insertCell().textContent = row[key];
  }
  $("gpt-ladder-table").hidden = false;
  ladderStatus(`the median of ${msg.rounds} steps a rung on ${JSON.stringify(msg.name)}, ` +
               `timed in ${(msg.ms / 1000).toFixed(1)} s; press ▶ Train to go on training`);
}

function drawLosses() {
  const c = $("gpt-losses"), ctx = c.getContext("2d"), L = state.losses;
  ctx.clearRect(0, 0, c.width, c.height);
  ctx.fillStyle = "#495057"; ctx.font = "11px system-ui, sans-serif";
  if (!L.length) { ctx.fillText("loss: starts when Python is ready", 10, 20); return; }
  const pad = 28, top = Math.max(4, ...L.filter(Number.isFinite)), w = c.width - pad - 8, h = c.height - pad - 20;
  const x = (k) => pad + w * (L.length === 1 ? 0.5 : k / (L.length - 1));
  const y = (v) => c.height - pad - h * Math.min(1, v / top);
  ctx.fillText(`loss per step (grey) and mean of ${WINDOW} (blue), ${L.length} steps`, 8, 14);
  ctx.strokeStyle = "#dee2e6"; ctx.beginPath();
  for (const v of [0, 1, 2, 3]) { ctx.moveTo(pad, y(v)); ctx.lineTo(c.width - 8, y(v)); ctx.fillText(String(v), 8, y(v) + 4); }
  ctx.stroke();
  const every = Math.max(1, Math.floor(L.length / 1500));  // at most ~1500 segments a redraw
  line(ctx, L, every, x, y, "#adb5bd", 1);
  const mean = [];
  let sum = 0;
  L.forEach((v, k) => { sum += v; if (k >= WINDOW) sum -= L[k - WINDOW]; mean.push(sum / Math.min(k + 1, WINDOW)); });
  line(ctx, mean, every, x, y, "#1c7ed6", 2);
}

function line(ctx, values, every, x, y, colour, width) {
  ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.beginPath();
  for (let k = 0; k < values.length; k += every) {
    if (k === 0) ctx.moveTo(x(k), y(values[k])); else ctx.lineTo(x(k), y(values[k]));
  }
  ctx.stroke(); ctx.lineWidth = 1;
}

// One square per head: row t (a position) over columns s <= t (the positions it attends to),
// darker for more weight; the letters along the edges are drawn as canvas text.
function drawAttention(msg) {
  const c = $("gpt-attention"), ctx = c.getContext("2d");
  if (!msg.ok) { ctx.clearRect(0, 0, c.width, c.height); return; }  // no pattern left beside a refusal
  const n = msg.labels.length, heads = msg.heads.length;
  const label = 30, gap = 14, room = 560;
  const cell = Math.max(6, Math.min(22, Math.floor((room - label - gap * heads) / (heads * n))));
  c.width = label + heads * (n * cell + gap);  // the canvas fits the squares: no empty frame around them
  c.height = 16 + n * cell + 18;
  ctx.clearRect(0, 0, c.width, c.height);
  ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "middle";
  msg.heads.forEach((grid, h) => {
    const x0 = label + h * (n * cell + gap), y0 = 16;
    ctx.fillStyle = "#495057"; ctx.textAlign = "left"; ctx.fillText(`head ${h}`, x0, 8);
    for (let t = 0; t < n; t++) {
      for (let s = 0; s < n; s++) {
        const w = s <= t ? grid[t][s] : null;
        ctx.fillStyle = w === null ? "#f1f3f5" : `rgba(28, 126, 214, ${0.04 + 0.96 * w})`;
        ctx.fillRect(x0 + s * cell, y0 + t * cell, cell - 1, cell - 1);
      }
    }
    ctx.fillStyle = "#495057"; ctx.textAlign = "center";
    msg.labels.forEach((l, s) => ctx.fillText(l === "BOS" ? "·" : l, x0 + s * cell + cell / 2, y0 + n * cell + 8));
  });
  ctx.textAlign = "right";
  msg.labels.forEach((l, t) => ctx.fillText(l, label - 4, 16 + t * cell + cell / 2));
}

// ---- wiring ----------------------------------------------------------------------------------

function wire() {
  $("gpt-play").addEventListener("click", () => worker.postMessage({ type: state.playing ? "pause" : "play" }));
  $("gpt-explore").addEventListener("click", () => { $("gpt-explore").disabled = true; worker.postMessage({ type: "explore" }); });
  $("gpt-ladder").addEventListener("click", () => {
    $("gpt-ladder").disabled = true;
    state.ladder = null;
    ladderStatus("starting…");
    worker.postMessage({ type: "ladder" });
  });
  $("gpt-temp").addEventListener("input", () => {
    $("gpt-temp-value").textContent = Number($("gpt-temp").value).toFixed(1);
    worker.postMessage({ type: "temperature", value: Number($("gpt-temp").value) });
  });
  $("gpt-add-form").addEventListener("submit", (e) => {
    e.preventDefault();
    worker.postMessage({ type: "add", name: $("gpt-add").value });
  });
  $("gpt-attn-form").addEventListener("submit", (e) => {
    e.preventDefault();
    worker.postMessage({ type: "attention", name: $("gpt-attn").value });
  });
}

for (const button of document.querySelectorAll("#tabs [data-tab]")) {
  button.addEventListener("click", () => showTab(button.dataset.tab, true));
}
const askedTab = new URLSearchParams(location.search).get("tab");
showTab(Object.hasOwn(OWN, askedTab || "") ? askedTab : "engine", false);
