// The GPT tab's worker: its own Pyodide running gpt_runner.GPTSession (microgpt on the names).
// While playing it trains in slices of ~400 ms, then posts the new losses (and, every few steps,
// fresh samples); the page's messages (add a name, show attention, explore a step) are handled
// between slices. numpy (for compile_loss) is used only if the site ships Pyodide's wheel of it
// beside the runtime: nothing is fetched from anywhere else.
import { boot, serve } from "./boot.mjs";

const SLICE = 0.4;          // seconds of training between two updates of the page
const SAMPLE_EVERY = 25;    // steps between two redraws of the samples
const SAMPLES = 8;
const NUMPY_WAIT = 30000;   // ms: past this, numpy has not loaded "in time" and the tab trains eagerly
let playing = false, timer = null, temperature = 0.5, sampledAt = -1;
let watched = null;  // the last name whose attention was asked for: redrawn with the samples
let rate = { steps: 0, ms: 0 };
// The speed ladder's modules, fetched into Python's benchmarks/ the first time it is timed (the
// build's LADDER_FILES), and its timed steps a rung: few, as each rung takes turns in this one worker.
const LADDER_FILES = ["__init__.py", "ladder.py", "gpt_workloads.py", "gpt_floor.py", "report.py", "suite.py",
                      "playground_ready.py"];
const LADDER_ROUNDS = 3;

const here = (name) => new URL(name, import.meta.url).href;

// numpy's wheel, if this site's runtime folder has it (the build copies it when it can): its file
// name, or why not.
async function numpyWheel() {
  try {
    const lock = await (await fetch(here("./pyodide/pyodide-lock.json"))).json();
    const entry = lock.packages && lock.packages.numpy;
    if (!entry) return { why: "this Pyodide has no numpy" };
    const head = await fetch(here(`./pyodide/${entry.file_name}`), { method: "HEAD" });
    if (!head.ok) return { why: "the site does not ship Pyodide's numpy" };
    return { file: entry.file_name };
  } catch (err) {
    return { why: `numpy failed to load: ${err}` };
  }
}

async function loadNumpy(py) {
  const started = performance.now();
  try {
    const late = new Promise((resolve) => setTimeout(() => resolve("late"), NUMPY_WAIT));
    if (await Promise.race([py.loadPackage("numpy"), late]) === "late") {
      return { ok: false, why: `numpy did not load within ${NUMPY_WAIT / 1000} s` };
    }
    return { ok: true, why: `numpy loaded in ${((performance.now() - started) / 1000).toFixed(1)} s` };
  } catch (err) {
    return { ok: false, why: `numpy failed to load: ${err}` };
  }
}

serve(async (init) => {
  // With numpy to load Python starts here: the build's snapshot (boot.mjs) is of Python with pure
  // Python modules only, and a compiled package loaded after a restore is not what Pyodide's
  // snapshots are made and tested for. Without it, the snapshot is restored.
  const wheel = await numpyWheel();
  const { py, ms, from } = await boot(init.wheel, ["gpt_runner.py", "names.txt"], wheel.file ? "" : init.snapshot);
  const numpy = wheel.file ? await loadNumpy(py) : { ok: false, why: wheel.why };
  py.runPython(`
import json, gpt_runner
session = gpt_runner.GPTSession.from_file("/home/pyodide/names.txt", compiled=${numpy.ok ? "True" : "False"})
`);
  const g = py.globals;
  const api = { py, session: g.get("session"), json: g.get("json"), numpy };
  postMessage({ type: "ready", ms, mode: api.session.mode, numpy: numpy.why, from });
  post(api, []);
  return api;
}, async (api, msg) => {
  switch (msg.type) {
    case "init": return;
    case "play": if (!playing) { playing = true; rate = { steps: 0, ms: 0 }; schedule(); } return;
    case "pause": playing = false; post(api, []); return;
    case "temperature": setTemperature(api, Number(msg.value)); return;
    case "add": postMessage({ type: "added", ...call(api, "add", msg.name) }); post(api, []); return;
    case "attention": attention(api, msg.name); return;
    case "explore": explore(api); return;
    case "ladder": await ladder(api); return;
    case "tick": if (playing) { tick(api); schedule(); } return;
  }
});

// A temperature Python refuses (out of its range) leaves the one before in place, so training and
// the samples go on; the refusal (Python's message) reaches the page as a failure.
function setTemperature(api, value) {
  const before = temperature;
  temperature = value; sampledAt = -1;
  try {
    post(api, []);
  } catch (err) {
    temperature = before; sampledAt = -1;
    throw err;
  }
}

// A session method's dict result, as a plain object (through JSON: no proxies left behind).
function call(api, method, ...args) {
  const fn = api.session[method];
  const result = fn(...args);  // no argument stays none: an undefined would arrive as None
  const text = api.json.dumps(result);
  result.destroy(); fn.destroy();
  return JSON.parse(text);
}

function attention(api, name) {
  const result = call(api, "attention", name);
  if (result.ok) watched = result.name;
  postMessage({ type: "attention", ...result });
}

function tick(api) {
  const t0 = performance.now();
  const proxy = api.session.train(SLICE, 1000);
  const losses = proxy.toJs();
  proxy.destroy();
  rate.steps += losses.length; rate.ms += performance.now() - t0;
  if (!losses.every(Number.isFinite)) playing = false;  // shown, not trained on
  post(api, losses);
}

function explore(api) {
  postMessage({ type: "exploring" });
  const t0 = performance.now();
  const result = call(api, "explore_step");
  postMessage({ type: "explored", ...result, ms: performance.now() - t0 });
  post(api, [result.loss]);
}

// The speed ladder timed here, training paused: the rungs take turns in this worker's Python (no
// processes in Pyodide), on the tab's names, numpy's rungs absent (and why) when numpy did not load.
async function ladder(api) {
  playing = false;
  post(api, []);
  const progress = (text) => postMessage({ type: "ladder-progress", text });
  const t0 = performance.now();
  if (!api.ladderLoaded) {
    progress("fetching the ladder's modules…");
    api.py.FS.mkdirTree("/home/pyodide/benchmarks");
    for (const name of LADDER_FILES) {
      const response = await fetch(here(`./benchmarks/${name}`));
      if (!response.ok) throw new Error(`benchmarks/${name}: HTTP ${response.status}`);
      api.py.FS.writeFile(`/home/pyodide/benchmarks/${name}`, await response.text());
    }
    api.ladderLoaded = true;
  }
  const runner = api.py.pyimport("gpt_runner");
  const names = runner.read_names("/home/pyodide/names.txt");
  const result = runner.time_ladder(LADDER_ROUNDS, names, api.numpy.ok ? null : api.numpy.why, progress);
  const text = api.json.dumps(result);
  result.destroy(); names.destroy(); runner.destroy();
  postMessage({ type: "ladder", ...JSON.parse(text), ms: performance.now() - t0 });
}

function post(api, losses) {
  const s = api.session;
  const steps = s.steps;
  const state = { type: "state", steps, losses, names: s.names_count(), next: s.next_name(),
                  playing, mode: s.mode, temperature,
                  stepsPerSecond: rate.ms > 0 ? rate.steps / (rate.ms / 1000) : null };
  if (sampledAt < 0 || steps - sampledAt >= SAMPLE_EVERY || (!playing && sampledAt !== steps)) {
    const proxy = s.samples(SAMPLES, temperature);
    state.samples = proxy.toJs();
    proxy.destroy();
    sampledAt = steps;
  }
  postMessage(state);
  if (state.samples && watched !== null) attention(api, watched);  // as the model now sees it
}

// The next slice goes through the message queue, so pause and the page's requests come in between.
function schedule() {
  clearTimeout(timer);
  if (playing) timer = setTimeout(() => self.onmessage({ data: { type: "tick" } }), 0);
}
