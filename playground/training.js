// The playground's training tab: the controls, the network of neuron pictures, the field, the loss
// curves and the share link of a set-up; the training itself runs in trainer.mjs's Python.
// The page shows only what the worker sends and builds every element itself (textContent, never
// markup), so nothing from a link can become markup or script.
import { encodeState, stateFromHash, TRAIN_PREFIX } from "./training-link.js";
import { drawHeatmap, drawCurves, drawPoints } from "./training-draw.js";

const $ = (id) => document.getElementById(id);
const wheel = document.body.dataset.wheel;
const COLOURS = ["#e8590c", "#1c7ed6"];
const FEATURE_NAMES = { x: "x", y: "y", x2: "x²", y2: "y²", xy: "xy", sinx: "sin x", siny: "sin y" };
const FEATURES = Object.keys(FEATURE_NAMES);
const MAX_LAYERS = 6, MAX_NEURONS = 8;
const SVG = "http://www.w3.org/2000/svg";

// read by the browser tests
const shown = { readyMs: null, bootFrom: null, snapshots: 0, generation: null, curve: [], last: null, explored: null,
                refused: null, stepsPerSecond: null };
window.mgTraining = shown;

let trainer = null, view = null;
const field = $("field");

// ---- the worker ----------------------------------------------------------------------------

// Starts the training worker (once); the page calls it when the editor's Python has answered.
export function startTrainer() {
  if (trainer !== null) return;
  const link = stateFromHash(location.hash);
  if (link.error) linkRefused(link.error);
  trainer = new Worker("trainer.mjs", { type: "module" });
  trainer.onmessage = (e) => onTrainer(e.data);
  trainer.onerror = (e) => { $("trainer-status").textContent = "failed: " + (e.message || "see the console"); };
  trainer.postMessage({ type: "init", wheel, snapshot: document.body.dataset.snapshot, state: link.state });
  if (link.state !== undefined) $("train-section").scrollIntoView();
}

function send(msg) { if (trainer !== null) trainer.postMessage(msg); }

// ``kept``: the link came to the open page, whose training goes on; else the page opened with it.
function linkRefused(why, kept = false) {
  const box = $("train-link-broken");
  box.replaceChildren();
  const strong = document.createElement("strong");
  strong.textContent = "This link's training set-up could not be read";
  box.append(strong, ` (${why}): ${kept ? "the training goes on as it was" : "the default set-up is shown instead"}.`);
  box.hidden = false;
  shown.refused = why;
}

function onTrainer(msg) {
  if (msg.type === "ready") {
    shown.readyMs = performance.now();
    shown.bootFrom = msg.from;  // "snapshot" or "start", as boot.mjs says
    $("trainer-status").textContent = `ready in ${(shown.readyMs / 1000).toFixed(1)} s`;
    for (const el of $("train-section").querySelectorAll("button, select, input")) el.disabled = false;
    if (msg.refused) linkRefused(msg.refused);
  } else if (msg.type === "failed") {
    $("trainer-status").textContent = "error"; console.error(msg.error);
  } else if (msg.type === "refused") {
    if (msg.link) linkRefused(msg.error, true);
    else $("trainer-status").textContent = "refused: " + msg.error;
  } else if (msg.type === "explored") {
    showExplored(msg);
  } else if (msg.type === "state") {
    onState(msg);
  }
}

function onState(msg) {
  if (msg.generation !== shown.generation) shown.curve = [];  // a new model: new curves
  shown.generation = msg.generation;
  shown.curve.push(...msg.curve);
  shown.snapshots += 1;
  shown.stepsPerSecond = msg.stepsPerSecond;
  view = msg;
  shown.last = { steps: msg.steps, loss: msg.loss, accuracy: msg.accuracy, state: msg.state, playing: msg.playing,
                 neurons: msg.neurons.map((layer) => layer.length) };
  const fmt = (x, k = 4) => (x === null ? "–" : x.toFixed(k));
  const pct = (x) => (x === null ? "–" : (100 * x).toFixed(0) + " %");
  $("steps").textContent = String(msg.steps);
  $("loss").textContent = fmt(msg.loss[0]);
  $("test-loss").textContent = fmt(msg.loss[1]);
  $("accuracy").textContent = pct(msg.accuracy[0]);
  $("test-accuracy").textContent = pct(msg.accuracy[1]);
  $("sps").textContent = msg.stepsPerSecond === null ? "–" : msg.stepsPerSecond.toFixed(1);
  const tests = msg.state.points.filter((p) => p[3]).length;
  $("npoints").textContent = `${msg.state.points.length - tests} training, ${tests} test`;
  $("play").textContent = msg.playing ? "Pause" : "▶ Train";
  $("play").classList.toggle("on", msg.playing);
  showControls(msg.state);
  drawNetwork(msg);
  drawField();
  drawCurves($("losses"), shown.curve);
}

// ---- the controls ----------------------------------------------------------------------------

function showControls(state) {
  for (const b of $("datasets").querySelectorAll("button")) b.classList.toggle("on", b.dataset.dataset === state.dataset);
  for (const select of $("train-section").querySelectorAll("select[data-setting]")) {
    const value = String(state[select.dataset.setting]);
    // a value from a link that no option has: shown as an option of its own (text, not markup)
    if (![...select.options].some((o) => o.value === value)) select.add(new Option(value, value));
    select.value = value;
  }
  $("net-shape").textContent = `MLP(${state.features.length}, [${[...state.hidden, 1].join(", ")}])`;
  $("add-layer").disabled = state.hidden.length >= MAX_LAYERS;
  $("remove-layer").disabled = state.hidden.length === 0;
}

function change(changes) { send({ type: "change", changes }); }

function setting(select) {
  const value = select.dataset.kind === "number" ? Number(select.value) : select.value;
  change({ [select.dataset.setting]: value });
}

// ---- the network: a column of features, one per hidden layer, the output ------------------------

function drawNetwork(msg) {
  const state = msg.state, net = $("network");
  const key = JSON.stringify([state.features, state.hidden]);
  if (net.dataset.key !== key) buildNetwork(net, state);
  net.dataset.key = key;
  const canvases = net.querySelectorAll("canvas.neuron");
  for (const c of canvases) {
    const layer = Number(c.dataset.layer), index = Number(c.dataset.index);
    if (layer === 0) {  // every feature has its picture, chosen or not: the chosen ones are the inputs
      const k = state.features.indexOf(c.dataset.feature);
      drawHeatmap(c, k < 0 ? featureGrid(c.dataset.feature, msg) : msg.neurons[0][k], msg.n, k < 0);
    } else drawHeatmap(c, msg.neurons[layer][index], msg.n, false);
  }
  drawWeights(net, msg);
}

// A feature not chosen is not computed by the worker: its picture is drawn here from its formula.
function featureGrid(name, msg) {
  const [x0, x1, y0, y1] = msg.bounds, n = msg.n, out = [];
  const f = { x: (x, y) => x, y: (x, y) => y, x2: (x, y) => x * x, y2: (x, y) => y * y, xy: (x, y) => x * y,
              sinx: (x, y) => Math.sin(x), siny: (x, y) => Math.sin(y) }[name];
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++)
    out.push(f(x0 + (i + 0.5) * (x1 - x0) / n, y1 - (j + 0.5) * (y1 - y0) / n));
  return out;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function neuronCanvas(layer, index, title) {
  const c = el("canvas", "neuron");
  c.width = 40; c.height = 40;
  c.dataset.layer = String(layer); c.dataset.index = String(index);
  c.title = title;
  return c;
}

function buildNetwork(net, state) {
  net.replaceChildren();
  const inputs = el("div", "layer features");
  inputs.append(el("div", "layer-head", "features"));
  for (const name of FEATURES) {
    const row = el("label", "feature");
    const box = el("input"); box.type = "checkbox"; box.checked = state.features.includes(name);
    box.dataset.feature = name;
    box.addEventListener("change", () => toggleFeature(name, box.checked));
    const c = neuronCanvas(0, state.features.indexOf(name), `feature ${FEATURE_NAMES[name]}`);
    c.dataset.feature = name;
    c.classList.toggle("off", !box.checked);
    row.append(box, el("span", "name", FEATURE_NAMES[name]), c);
    inputs.append(row);
  }
  net.append(inputs);
  state.hidden.forEach((size, k) => {
    const col = el("div", "layer hidden");
    const head = el("div", "layer-head");
    const plus = el("button", "", "+"), minus = el("button", "", "−");
    plus.title = "add a neuron"; minus.title = "remove a neuron";
    plus.disabled = size >= MAX_NEURONS; minus.disabled = size <= 1;
    plus.addEventListener("click", () => resize(k, +1));
    minus.addEventListener("click", () => resize(k, -1));
    head.append(plus, minus, el("span", "", ` ${size}`));  // narrow: the columns stay in view
    head.title = `hidden layer ${k + 1}: ${size} neuron${size === 1 ? "" : "s"}`;
    col.append(head);
    for (let j = 0; j < size; j++) col.append(neuronCanvas(k + 1, j, `layers.${k}.neurons.${j}`));
    net.append(col);
  });
  const out = el("div", "layer output");
  out.append(el("div", "layer-head", "output"), neuronCanvas(state.hidden.length + 1, 0, `layers.${state.hidden.length}.neurons.0`));
  net.append(out);
  net.append(document.createElementNS(SVG, "svg"));
}

// A line from each input to each neuron, blue for a positive weight, orange for a negative one,
// thicker for a larger one (the numbers come from the worker; only numbers go into attributes).
function drawWeights(net, msg) {
  const svg = net.querySelector("svg"), w = msg.weights, base = net.getBoundingClientRect();
  svg.setAttribute("width", String(net.scrollWidth)); svg.setAttribute("height", String(net.scrollHeight));
  svg.replaceChildren();
  const columns = [msg.state.features.map((f) => net.querySelector(`canvas.neuron[data-feature="${f}"]`))];
  for (let k = 1; k <= w.length; k++) columns.push([...net.querySelectorAll(`canvas.neuron[data-layer="${k}"]`)]);
  w.forEach((layer, k) => layer.forEach((ws, j) => ws.forEach((v, i) => {
    const a = columns[k][i], b = columns[k + 1][j];
    if (!a || !b || v === null) return;
    const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
    const line = document.createElementNS(SVG, "line");
    line.setAttribute("x1", String(ra.right - base.left + net.scrollLeft));
    line.setAttribute("y1", String(ra.top + ra.height / 2 - base.top + net.scrollTop));
    line.setAttribute("x2", String(rb.left - base.left + net.scrollLeft));
    line.setAttribute("y2", String(rb.top + rb.height / 2 - base.top + net.scrollTop));
    line.setAttribute("stroke", v > 0 ? "#1c7ed6" : "#e8590c");
    line.setAttribute("stroke-width", String(0.4 + Math.min(3, 1.5 * Math.abs(v))));
    svg.append(line);
  })));
}

function toggleFeature(name, on) {
  const features = view.state.features.filter((f) => f !== name);
  if (on) features.push(name);
  if (!features.length) { drawNetwork(view); return; }  // at least one input: the box goes back on
  change({ features });
}

function resize(k, by) {
  const hidden = [...view.state.hidden];
  hidden[k] = Math.max(1, Math.min(MAX_NEURONS, hidden[k] + by));
  change({ hidden });
}

// ---- the field ---------------------------------------------------------------------------------

function drawField() {
  const ctx = field.getContext("2d");
  drawHeatmap(field, view.neurons[view.neurons.length - 1][0], view.n, false);
  drawPoints(ctx, field, view.state.points, view.bounds, COLOURS);
}

function toData(px, py) {
  const [x0, x1, y0, y1] = view.bounds;
  return [x0 + px / field.width * (x1 - x0), y1 - py / field.height * (y1 - y0)];
}

field.addEventListener("click", (e) => {
  if (!view) return;
  const box = field.getBoundingClientRect();
  const [x, y] = toData((e.clientX - box.left) * field.width / box.width, (e.clientY - box.top) * field.height / box.height);
  if (e.shiftKey) send({ type: "remove", x, y });
  else send({ type: "add", x, y, label: Number(document.querySelector("input[name=cls]:checked").value) });
});

// ---- the explorer and the share link ---------------------------------------------------------

function showExplored(msg) {
  shown.explored = msg.error ? { error: msg.error } : { title: msg.title, size: msg.size, ms: msg.ms };
  $("train-explorer-heading").hidden = false;
  $("explore-step").disabled = false;
  if (msg.error) { $("train-explorer-title").textContent = msg.error; return; }
  $("train-explorer-title").textContent = `${msg.title} · ${msg.size} Values, built in ${(msg.ms / 1000).toFixed(1)} s`;
  const frame = $("train-explorer");
  frame.srcdoc = msg.html;
  frame.hidden = false;
  $("train-explorer-heading").scrollIntoView();
}

async function shareSetup() {
  if (!view) return;
  const link = location.href.split("#")[0] + TRAIN_PREFIX + encodeState(view.state);
  history.replaceState(null, "", link);
  const box = $("train-share-link");
  box.value = link; box.hidden = false;
  try {
    await navigator.clipboard.writeText(link);
    $("train-share-status").textContent = "link copied";
  } catch (err) {
    box.select();
    $("train-share-status").textContent = "copy the link";
  }
}

// ---- wiring ------------------------------------------------------------------------------------

$("play").addEventListener("click", () => send({ type: view && view.playing ? "pause" : "play" }));
$("step").addEventListener("click", () => send({ type: "step" }));
$("reset").addEventListener("click", () => send({ type: "reset" }));
$("new-data").addEventListener("click", () => send({ type: "new-data" }));
$("explore-step").addEventListener("click", () => {
  $("explore-step").disabled = true;
  $("train-explorer-heading").hidden = false;
  $("train-explorer-title").textContent = "building the step's graph and its explorer…";
  send({ type: "explore" });
});
$("train-share").addEventListener("click", shareSetup);
$("add-layer").addEventListener("click", () => view && change({ hidden: [...view.state.hidden, 4] }));
$("remove-layer").addEventListener("click", () => view && change({ hidden: view.state.hidden.slice(0, -1) }));
for (const b of $("datasets").querySelectorAll("button")) b.addEventListener("click", () => change({ dataset: b.dataset.dataset }));
for (const select of $("train-section").querySelectorAll("select[data-setting]")) {
  select.addEventListener("change", () => setting(select));
}
// A set-up link opened on the open page (the fragment changed): that set-up, the training paused.
window.addEventListener("hashchange", () => {
  if (!location.hash.startsWith(TRAIN_PREFIX)) return;
  const link = stateFromHash(location.hash);
  if (link.error) linkRefused(link.error, true);
  else { $("train-link-broken").hidden = true; send({ type: "load", state: link.state }); }
});
