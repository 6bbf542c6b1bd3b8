// The playground's "Build micrograd" tab (?tab=lab): notebook 05 in the page. Each step (read from
// the notebook at build time: lab_steps.json) has its explanation, an editor holding the learner's
// method, and Check. The learner's file (the header, the class and every step's cell) runs in the
// learner worker (lab-worker.mjs), which sends raw answers only; the grader worker
// (lab-grader-worker.mjs), where the learner's code never runs, decides each line with
// check_engine's own code. A case that does not answer within the time limit, or Stop, terminates
// the learner worker and starts a new one. Everything the learner wrote or their code sent is shown
// as text (textContent) or drawn by the explorer's layout, which escapes it, in a sandboxed frame.
// ?tab=lab&step=N opens step N; &solutions=hidden hides the solutions (a teacher's link).
"use strict";

const $ = (id) => document.getElementById(id);
const STORE = "micrograd-lab-v1";
const params = new URLSearchParams(location.search);
const state = {
  started: false, steps: null, header: "", finale: "", step: 0, codes: {}, verdicts: {},
  learnerReady: false, graderReady: false, busy: null, lines: null, verdict: null, problem: null,
  stopped: null, picture: null, restarts: 0, gpt: null, limitMs: 60000,
  solutionsHidden: params.get("solutions") === "hidden",
};
window.mgLab = state;  // read by the browser tests

const MARKUP = `
<h2 id="lab-heading">Build micrograd <small>notebook 05 in the page: write each method of your own <code>Value</code>;
  Check grades it as <code>check_engine</code> does. Your code runs in a Python of its own; the grader's
  Python never runs it.</small></h2>
<p class="lab-status"><span id="lab-status">loading the two Pythons…</span></p>
<nav id="lab-steps" class="lab-steps" aria-label="the steps"></nav>
<div class="lab-row">
  <div class="lab-main">
    <h3 id="lab-title"></h3>
    <div id="lab-text" class="lab-text"></div>
    <p id="lab-teacher-note" class="muted small" hidden>Solutions are hidden by this link.</p>
    <textarea id="lab-editor" spellcheck="false" autocomplete="off" aria-label="your code for this step"></textarea>
    <div class="bar">
      <button id="lab-check" disabled>Check</button>
      <button id="lab-stop" disabled title="stop your code (its Python restarts)">■ Stop</button>
      <button id="lab-explore" disabled>Show me this step in the explorer</button>
      <button id="lab-solution-button">Show solution</button>
      <button id="lab-reset" title="this step's code as the notebook starts it">Start this step again</button>
    </div>
    <div class="bar">
      <button id="lab-download" title="your whole class as one Python file">Download .py</button>
      <button id="lab-export" title="every step's verdict table as text">Export verdicts</button>
      <button id="lab-teacher" title="a link to this step with the solutions hidden">Teacher link</button>
      <input id="lab-link" readonly aria-label="the teacher's link" hidden>
    </div>
    <div id="lab-solution" class="lab-solution" hidden>
      <p class="notice"><strong>Spoiler:</strong> this is one way to write this step. Try it yourself first:
        the hints of Check say where to look. <button id="lab-solution-show">Show it anyway</button></p>
      <pre id="lab-solution-code" hidden></pre>
    </div>
  </div>
  <div class="lab-side">
    <h3>Verdict <small id="lab-verdict-of" class="muted"></small></h3>
    <p id="lab-verdict" class="lab-verdict" role="status"></p>
    <p id="lab-stale" class="notice small" hidden>Your code has changed since this check: press Check again.</p>
    <pre id="lab-problem" class="output error" hidden></pre>
    <table id="lab-lines" class="lab-lines"><tbody></tbody></table>
    <textarea id="lab-export-text" readonly aria-label="the verdicts as text" hidden></textarea>
  </div>
</div>
<div id="lab-explorer-box" hidden>
  <h3>Your graph <small id="lab-explorer-note" class="muted"></small></h3>
  <p class="muted small">Your own Values after your <code>backward()</code>, drawn with the explorer's layout: each
    named node shows your data and grad, then the right ones; red where yours differ.</p>
  <iframe id="lab-explorer" title="your graph, with your gradients" sandbox=""></iframe>
</div>
<div id="lab-finale" class="lab-finale" hidden>
  <h3>The finale: microgpt on your Value</h3>
  <p id="lab-finale-text" class="lab-text"></p>
  <div class="bar">
    <label>steps <select id="lab-gpt-steps"><option>10</option><option selected>30</option><option>100</option>
      <option>500</option></select></label>
    <button id="lab-gpt">Train microgpt on your Value</button>
    <span id="lab-gpt-status" class="muted"></span>
  </div>
  <table class="stats">
    <tr><th>steps</th><td id="lab-gpt-n">0</td><th>loss</th><td id="lab-gpt-loss">–</td></tr>
    <tr><th>your Value, steps / s</th><td id="lab-gpt-rate">–</td><th>built-in Value, steps / s</th><td id="lab-gpt-builtin">–</td></tr>
  </table>
  <canvas id="lab-gpt-losses" width="520" height="200" aria-label="microgpt's loss at every step"></canvas>
  <h3>Samples <small>names drawn from the model trained on your Value</small></h3>
  <ol id="lab-gpt-samples" class="gpt-samples"></ol>
</div>
`;

// ---- the steps and what the learner wrote --------------------------------------------------

function load() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE) || "{}");
    if (saved && typeof saved === "object") {
      if (saved.codes && typeof saved.codes === "object") state.codes = saved.codes;
      if (saved.verdicts && typeof saved.verdicts === "object") state.verdicts = saved.verdicts;
      if (Number.isInteger(saved.step)) state.step = saved.step;
    }
  } catch (err) {
    console.warn("lab: the saved code could not be read; starting afresh", err);
  }
}

function save() {
  try {
    localStorage.setItem(STORE, JSON.stringify({ codes: state.codes, verdicts: state.verdicts, step: state.step }));
  } catch (err) {
    console.warn("lab: the code could not be saved in this browser", err);
  }
}

function codeOf(k) {
  const saved = state.codes[k];
  return typeof saved === "string" ? saved : state.steps[k].starter || "";
}

// The learner's whole file: the notebook's imports, the class, every step's cell, in order.
function wholeFile() {
  const cells = state.steps.map((s, k) => (s.starter === null ? null : codeOf(k))).filter((c) => c !== null);
  return [state.header, ...cells].join("\n\n\n") + "\n";
}

// A step's explanation: the notebook's markdown, with `code` as code and [text](link) as its text.
function explain(element, markdown) {
  element.replaceChildren();
  for (const paragraph of markdown.split(/\n\s*\n/)) {
    const p = document.createElement("p");
    paragraph.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").split("`").forEach((part, k) => {
      if (k % 2) { const c = document.createElement("code"); c.textContent = part; p.appendChild(c); }
      else p.appendChild(document.createTextNode(part));
    });
    element.appendChild(p);
  }
}

function showStep(k) {
  state.step = Math.max(0, Math.min(state.steps.length - 1, k));
  const step = state.steps[state.step];
  for (const b of $("lab-steps").children) b.setAttribute("aria-current", String(Number(b.dataset.step) === state.step));
  $("lab-title").textContent = step.title;
  explain($("lab-text"), step.text);
  const editable = step.starter !== null;
  $("lab-editor").hidden = !editable;
  $("lab-editor").value = editable ? codeOf(state.step) : "";
  $("lab-check").hidden = !step.check;
  $("lab-explore").hidden = !step.explore;
  $("lab-solution-button").hidden = state.solutionsHidden || step.solution === null;
  $("lab-reset").hidden = !editable;
  $("lab-solution").hidden = true;
  $("lab-solution-code").hidden = true;
  $("lab-teacher-note").hidden = !state.solutionsHidden;
  showVerdict(state.verdicts[state.step] || null);
  $("lab-finale").hidden = !finaleOpen();
  $("lab-explorer-box").hidden = true;  // a picture is of one step's expression
  save();
}

function stepButtons() {
  $("lab-steps").replaceChildren(...state.steps.map((s, k) => {
    const b = document.createElement("button");
    b.dataset.step = String(k);
    b.textContent = s.title.replace(/^(\d+)\. (.*?)(,.*)?$/, "$1. $2");
    b.addEventListener("click", () => showStep(k));
    return b;
  }));
  badges();
}

function badges() {
  for (const b of $("lab-steps").children) {
    const v = state.verdicts[b.dataset.step];
    b.dataset.verdict = v ? v.verdict : "";
    b.title = v ? v.verdict : "not checked yet";
  }
}

// ---- the verdict ---------------------------------------------------------------------------

const CLASS_OF = { OK: "ok", EDGE: "ok", WRONG: "wrong", TODO: "todo", TIMEOUT: "wrong", SKIP: "skip" };

function showVerdict(v) {
  state.verdict = v ? v.verdict : null;
  state.lines = v ? v.lines || [] : null;
  state.problem = v ? v.problem || null : null;
  $("lab-verdict-of").textContent = v ? `step: ${state.steps[state.step].title}` : "";
  $("lab-verdict").textContent = v ? v.verdict_line || v.verdict : "press Check";
  $("lab-verdict").dataset.verdict = v ? v.verdict : "";
  stale();
  $("lab-problem").hidden = !(v && v.problem);
  $("lab-problem").textContent = v && v.problem ? v.problem : "";
  const body = $("lab-lines").querySelector("tbody");
  body.replaceChildren();
  for (const line of (v && v.lines) || []) {
    const tr = document.createElement("tr");
    tr.className = CLASS_OF[line.status] || "";
    tr.dataset.check = line.check;
    const status = document.createElement("td"), what = document.createElement("td");
    status.textContent = line.words;
    const check = document.createElement("strong");
    check.textContent = line.check + ": ";
    what.append(check, document.createTextNode(line.message));
    if (line.hint) {
      const hint = document.createElement("div");
      hint.className = "hint";
      hint.textContent = "hint: " + line.hint;
      what.appendChild(hint);
    }
    tr.append(status, what);
    body.appendChild(tr);
  }
}

// A verdict is of the file as it was checked: said when the editors hold something else since.
function stale() {
  const v = state.verdicts[state.step];
  $("lab-stale").hidden = !(v && v.file !== undefined && v.file !== wholeFile());
}

function finaleOpen() {
  const last = state.steps.length - 1;
  return state.step === last && state.verdicts[last] && state.verdicts[last].verdict === "RIGHT";
}

// ---- the two workers -----------------------------------------------------------------------

let learner = null, grader = null, jobId = 0, watchdog = null, job = null;
const MOST_ANSWERS = 1000;

function status(text, bad = false) {
  $("lab-status").textContent = text;
  $("lab-status").classList.toggle("gpt-bad", bad);
}

function init(worker) {
  worker.postMessage({ type: "init", wheel: document.body.dataset.wheel, snapshot: document.body.dataset.snapshot });
}

function startLearner() {
  state.learnerReady = false; state.said = false;
  learner = new Worker("lab-worker.mjs", { type: "module" });
  learner.onmessage = (e) => onLearner(e.data);
  learner.onerror = (e) => status("your Python failed to start: " + (e.message || "see the console"), true);
  init(learner);
}

function startGrader() {
  grader = new Worker("lab-grader-worker.mjs", { type: "module" });
  grader.onmessage = (e) => onGrader(e.data);
  grader.onerror = (e) => status("the grader's Python failed to start: " + (e.message || "see the console"), true);
  init(grader);
}

function readiness() {
  const ready = state.learnerReady && state.graderReady;
  for (const id of ["lab-check", "lab-explore"]) $(id).disabled = !ready || job !== null;
  $("lab-gpt").disabled = !ready || job !== null;
  $("lab-stop").disabled = job === null;
  if (ready && job === null && !state.said) { state.said = true; status("ready"); }
}

function busy(kind) {
  jobId += 1;
  job = { id: jobId, kind, texts: [], step: state.step, started: performance.now() };
  state.busy = kind;
  readiness();
  arm();
  return job;
}

function done() {
  clearTimeout(watchdog);
  job = null; state.busy = null;
  readiness();
}

// The time limit: every message from the learner's code re-arms it; none within the limit and
// its worker is stopped (the grader then says which case ran out of time).
function arm() {
  clearTimeout(watchdog);
  if (job !== null && job.kind !== "gpt") watchdog = setTimeout(() => late(), state.limitMs);
}

function restartLearner() {
  learner.terminate();
  state.restarts += 1;
  startLearner();
}

function late() {
  const j = job;
  restartLearner();
  const seconds = state.limitMs / 1000;
  state.stopped = `time limit: your code ran longer than ${seconds} s without an answer; its Python was stopped and restarted`;
  status(state.stopped + " (restarting…)", true);
  if (j.kind === "check" && j.texts.length > 0) grade(j, "late");
  else { showVerdict({ verdict: "TIMED OUT", problem: state.stopped, lines: [] }); done(); }
}

function stop() {
  if (job === null) return;
  restartLearner();
  state.stopped = "stopped: you pressed Stop; your code's Python was restarted (nothing was graded)";
  if (job.kind === "check") showVerdict(null);
  status(state.stopped + " (restarting…)", true);
  $("lab-gpt-status").textContent = job.kind === "gpt" ? "stopped" : $("lab-gpt-status").textContent;
  done();
}

function onLearner(msg) {
  if (msg.type === "ready") { state.learnerReady = true; return readiness(); }
  if (msg.type === "failed") {
    console.error(msg.error, msg.stack);
    const lines = String(msg.error).trim().split("\n");
    if (job && job.kind === "gpt") $("lab-gpt-status").textContent = "error: " + lines[lines.length - 1];
    else showVerdict({ verdict: "ERROR", problem: String(msg.error), lines: [] });
    status("your code's Python raised: " + lines[lines.length - 1], true);
    return done();
  }
  if (job === null || msg.id !== job.id) return;  // from a job that was stopped
  arm();
  switch (msg.type) {
    case "loaded":
      if (!msg.ok) {
        const v = { verdict: "ERROR", verdict_line: "your file did not run", problem: msg.error, lines: [] };
        if (job.kind === "check") { state.verdicts[job.step] = v; badges(); }
        showVerdict(v);
        status("your file did not run: see the error", true);
        return done();
      }
      return;
    case "answer":
      job.texts.push(msg.text);
      // a check asks for about a hundred; a flood is cut short and graded as it is (the grader
      // reads what it asked for, in order, and says WRONG at the first answer that is not one)
      if (job.texts.length > MOST_ANSWERS) { restartLearner(); grade(job, "ended"); }
      return;
    case "answered": return grade(job, "ended");
    case "graph": return picture(job, msg.data);
    case "gpt-step": return gptStep(msg);
    case "gpt-samples": return gptSamples(msg);
    case "gpt-builtin": return gptBuiltin(msg);
  }
}

function onGrader(msg) {
  if (msg.type === "ready") { state.graderReady = true; return readiness(); }
  if (msg.type === "failed") { console.error(msg.error, msg.stack); status("the grader failed: see the console", true); return done(); }
  if (job === null || msg.id !== job.id) return;
  if (msg.type === "graded") {
    const v = msg.result;
    if (v.problem) { v.verdict = "ERROR"; v.verdict_line = "your class could not be graded"; v.lines = []; }
    v.file = job.file;
    state.verdicts[job.step] = v;
    badges(); save();
    if (state.step === job.step) showVerdict(v);
    $("lab-finale").hidden = !finaleOpen();
    if (job.late) status(state.stopped, true);
    else status(`checked in ${((performance.now() - job.started) / 1000).toFixed(1)} s: ${v.verdict}`);
    return done();
  }
  if (msg.type === "picture") return drawn(msg.result);
}

// ---- Check and the explorer ----------------------------------------------------------------

function check() {
  keep();
  state.stopped = null;
  const j = busy("check");
  status("checking: your code runs in its own Python…");
  $("lab-verdict").textContent = "checking…";
  j.file = wholeFile();
  learner.postMessage({ type: "check", id: j.id, code: j.file, only: state.steps[state.step].only });
}

function grade(j, end) {
  clearTimeout(watchdog);  // the learner's code has stopped: grading is the grader's time
  j.late = end === "late";
  const only = state.steps[j.step].only;
  status("grading…");
  grader.postMessage({ type: "grade", id: j.id, name: "Value", texts: j.texts, only, end,
                       seconds: state.limitMs / 1000 });
}

function explore() {
  keep();
  state.stopped = null;
  const j = busy("graph");
  status("building your graph…");
  learner.postMessage({ type: "graph", id: j.id, code: wholeFile(), spec: state.steps[state.step].explore });
}

function picture(j, data) {
  status("drawing it…");
  grader.postMessage({ type: "picture", id: j.id, data, spec: state.steps[j.step].explore });
}

function drawn(result) {
  state.picture = result;
  $("lab-explorer-box").hidden = false;
  if (result.error) {
    $("lab-explorer-note").textContent = result.error;
    $("lab-explorer").srcdoc = "";
  } else {
    $("lab-explorer-note").textContent = result.note +
      (result.wrong.length ? ` · differ from the right ones: ${result.wrong.join(", ")}` : " · every named node right");
    // the SVG of micrograd.viz.layout: every text in it escaped there; the frame runs no script
    $("lab-explorer").srcdoc = `<!DOCTYPE html><meta charset="utf-8"><style>body{margin:6px;font-family:Helvetica,Arial,sans-serif}svg{max-width:100%;height:auto}</style>${result.svg}`;
  }
  done();
  $("lab-explorer-box").scrollIntoView({ block: "nearest" });
}

// ---- solution, download, export, teacher link ----------------------------------------------

function keep() {
  if (state.steps[state.step].starter !== null) state.codes[state.step] = $("lab-editor").value;
  save();
  stale();
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url; a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function pyFile() {
  keep();
  return wholeFile() + '\n\nif __name__ == "__main__":\n    check_engine(Value)\n';
}

function exportText() {
  const when = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const parts = [`micrograd lab: verdicts (${when})`];
  state.steps.forEach((s, k) => {
    const v = state.verdicts[k];
    if (!s.check) return;
    parts.push("", `== ${s.title}: ${v ? v.verdict : "not checked"}`);
    if (v && v.text) parts.push(v.text);
    else if (v && v.problem) parts.push(v.problem);
  });
  return parts.join("\n") + "\n";
}

function teacherLink() {
  const url = new URL(location.href.split("#")[0]);
  url.search = "";
  url.searchParams.set("tab", "lab");
  url.searchParams.set("step", String(state.step));
  url.searchParams.set("solutions", "hidden");
  return url.href;
}

// ---- the finale: microgpt on the learner's Value -------------------------------------------

function train() {
  keep();
  const steps = Number($("lab-gpt-steps").value);
  state.gpt = { steps, losses: [], samples: [], rate: null, builtin: null, builtinLosses: [], done: false };
  const j = busy("gpt");
  $("lab-gpt-status").textContent = "training on your Value…";
  $("lab-gpt-samples").replaceChildren();
  drawLosses();
  learner.postMessage({ type: "gpt", id: j.id, code: wholeFile(), steps, compare: 5 });
}

function gptStep(msg) {
  state.gpt.losses.push(...msg.losses);
  state.gpt.rate = msg.rate;
  $("lab-gpt-n").textContent = String(state.gpt.losses.length);
  $("lab-gpt-loss").textContent = state.gpt.losses[state.gpt.losses.length - 1].toFixed(4);
  $("lab-gpt-rate").textContent = msg.rate.toFixed(2);
  drawLosses();
}

function gptSamples(msg) {
  state.gpt.samples = msg.samples;
  $("lab-gpt-samples").replaceChildren(...msg.samples.map((s) => {
    const li = document.createElement("li");
    li.textContent = s || "(empty)";
    return li;
  }));
  $("lab-gpt-status").textContent = "now the built-in Value, a few steps for its speed…";
}

function gptBuiltin(msg) {
  const g = state.gpt;
  g.builtin = msg.rate; g.builtinLosses = msg.losses; g.done = true;
  $("lab-gpt-builtin").textContent = msg.rate.toFixed(2);
  const same = msg.losses.every((x, k) => Math.abs(x - g.losses[k]) <= 1e-9 * Math.abs(x));
  g.same = same;
  $("lab-gpt-status").textContent = `done: ${g.losses.length} steps on your Value; its first ${msg.losses.length} ` +
    `losses ${same ? "are" : "are NOT"} the built-in Value's`;
  done();
}

const WINDOW = 5;  // steps in the running mean: one name's loss alone is mostly noise

function drawLosses() {
  const c = $("lab-gpt-losses"), ctx = c.getContext("2d"), L = (state.gpt && state.gpt.losses) || [];
  ctx.clearRect(0, 0, c.width, c.height);
  ctx.fillStyle = "#495057"; ctx.font = "11px system-ui, sans-serif";
  if (!L.length) { ctx.fillText("loss: press Train", 10, 20); return; }
  // the losses' own range, in halves: a few steps move the loss by tenths, invisible on 0 to 4
  const low = Math.floor(Math.min(...L) * 2) / 2, high = Math.max(low + 0.5, Math.ceil(Math.max(...L) * 2) / 2);
  const pad = 28, w = c.width - pad - 8, h = c.height - pad - 20;
  const x = (k) => pad + w * (L.length === 1 ? 0.5 : k / (L.length - 1));
  const y = (v) => c.height - pad - h * (v - low) / (high - low);
  ctx.fillText(`microgpt's loss on your Value (grey), mean of the last ${WINDOW} (blue), ${L.length} steps`, 8, 14);
  ctx.strokeStyle = "#dee2e6"; ctx.beginPath();
  for (let v = low; v <= high + 1e-9; v += 0.5) {
    ctx.moveTo(pad, y(v)); ctx.lineTo(c.width - 8, y(v)); ctx.fillText(v.toFixed(1), 4, y(v) + 4);
  }
  ctx.stroke();
  const mean = L.map((_, k) => { const part = L.slice(Math.max(0, k - WINDOW + 1), k + 1); return part.reduce((a, b) => a + b) / part.length; });
  for (const [values, colour, width] of [[L, "#adb5bd", 1], [mean, "#1c7ed6", 2]]) {
    ctx.strokeStyle = colour; ctx.lineWidth = width; ctx.beginPath();
    values.forEach((v, k) => (k ? ctx.lineTo(x(k), y(v)) : ctx.moveTo(x(k), y(v))));
    ctx.stroke();
  }
  ctx.lineWidth = 1;
}

// ---- start ---------------------------------------------------------------------------------

async function start() {
  if (state.started) return;
  state.started = true;
  $("lab-section").insertAdjacentHTML("beforeend", MARKUP);  // a constant: nothing of anyone's in it
  startLearner();
  startGrader();
  let data;
  try {
    data = await (await fetch("lab_steps.json")).json();
  } catch (err) {
    status(`the lab's steps did not load: ${err}`, true);
    return;
  }
  Object.assign(state, { steps: data.steps, header: data.header, finale: data.finale });
  load();
  const asked = Number.parseInt(params.get("step") || "", 10);
  if (Number.isInteger(asked)) state.step = asked;
  explain($("lab-finale-text"), data.finale);
  stepButtons();
  wire();
  showStep(state.step);
  drawLosses();
  readiness();
  state.loaded = true;
}

function wire() {
  $("lab-check").addEventListener("click", check);
  $("lab-stop").addEventListener("click", stop);
  $("lab-explore").addEventListener("click", explore);
  $("lab-editor").addEventListener("input", keep);
  $("lab-editor").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); if (!$("lab-check").disabled) check(); }
    else if (e.key === "Tab" && !e.shiftKey) {
      e.preventDefault();
      e.target.setRangeText("    ", e.target.selectionStart, e.target.selectionEnd, "end");
    }
  });
  $("lab-solution-button").addEventListener("click", () => { $("lab-solution").hidden = !$("lab-solution").hidden; });
  $("lab-solution-show").addEventListener("click", () => {
    $("lab-solution-code").textContent = state.steps[state.step].solution;
    $("lab-solution-code").hidden = false;
  });
  $("lab-reset").addEventListener("click", () => {
    delete state.codes[state.step];
    $("lab-editor").value = codeOf(state.step);
    save();
  });
  $("lab-download").addEventListener("click", () => download("my_micrograd.py", pyFile(), "text/x-python"));
  $("lab-export").addEventListener("click", () => {
    const text = exportText();
    $("lab-export-text").value = text; $("lab-export-text").hidden = false;
    download("micrograd-lab-verdicts.txt", text, "text/plain");
  });
  $("lab-teacher").addEventListener("click", () => { $("lab-link").value = teacherLink(); $("lab-link").hidden = false; $("lab-link").select(); });
  $("lab-gpt").addEventListener("click", train);
}

state.exportText = exportText;
state.pyFile = pyFile;
state.teacherLink = teacherLink;
document.addEventListener("playground-tab", (e) => { if (e.detail === "lab") start(); });
if ($("lab-section") && !$("lab-section").hidden) start();
