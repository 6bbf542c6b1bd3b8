// The playground page: an editor whose code runs in one worker's Pyodide (runner.mjs), its Value
// shown in the explorer (a sandboxed iframe); live training (training.js) in another worker.
// Everything the user's code prints or names is shown as text (textContent), never as markup.
"use strict";
import { startTrainer } from "./training.js";  // the training tab: it starts once the editor has answered

const DEFAULT_CODE = `from micrograd import Value

# The lecture's expression: L = (a*b + c) * f
a = Value(2.0)
b = Value(-3.0)
c = Value(10.0)
e = a * b
d = e + c
f = Value(-2.0)
L = d * f
L.backward()
print("L =", L.data)
print("dL/da =", a.grad, " dL/db =", b.grad)
`;

const $ = (id) => document.getElementById(id);
const wheel = document.body.dataset.wheel;
const state = { runs: 0, readyMs: null, sharedUnrun: false, boot: null, firstRunMs: null, bootFrom: null,
                snapshotError: null };
window.mgPlayground = state;  // read by the browser tests

// ---- sharing: the code in the URL fragment, base64url of its UTF-8 --------------------------------

function encode(text) {
  let bin = "";
  for (const byte of new TextEncoder().encode(text)) bin += String.fromCharCode(byte);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decode(token) {
  let b64 = token.replace(/-/g, "+").replace(/_/g, "/");
  while (b64.length % 4) b64 += "=";
  const bin = atob(b64);
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)));
}

// The link's code; null when there is no link, undefined when there is one that cannot be read
// (cut short or changed on the way).
function codeFromHash() {
  if (!location.hash.startsWith("#code=")) return null;
  const m = /^#code=([A-Za-z0-9_-]*)$/.exec(location.hash);
  if (!m) return undefined;
  try { return decode(m[1]); } catch (err) { return undefined; }
}

function brokenLink() {
  $("link-broken").hidden = false;
}

function shareLink() {
  return location.href.split("#")[0] + "#code=" + encode($("editor").value);
}

async function share() {
  const link = shareLink();
  history.replaceState(null, "", link);
  const box = $("share-link");
  box.value = link; box.hidden = false;
  try {
    await navigator.clipboard.writeText(link);
    $("share-status").textContent = "link copied";
  } catch (err) {
    box.select();
    $("share-status").textContent = "copy the link";
  }
}

// A shared link's code goes into the editor, unrun, with a notice saying so; the notice stays until
// the visitor runs code (Run, Ctrl+Enter or the lecture example).  A run asked for before
// (the page's example still waiting for Python) is dropped: nothing runs that was not clicked.
function loadShared(code) {
  pending = null;
  $("editor").value = code;
  const lines = code.split("\n").length - (code.endsWith("\n") ? 1 : 0);
  $("link-lines").textContent = `It is ${lines} line${lines === 1 ? "" : "s"} long.`;
  $("link-notice").hidden = false;
  state.sharedUnrun = true;
  $("editor").scrollTop = 0;
}

// ---- the editor's worker ---------------------------------------------------------------------

let runner = null, runId = 0, pending = null;

function setStatus(text, kind) {
  $("status").textContent = text;
  $("status").dataset.state = kind;
}

function startRunner() {
  runner = new Worker("runner.mjs", { type: "module" });
  runner.onmessage = (e) => onRunner(e.data);
  runner.onerror = (e) => { setStatus("Python failed to start: " + (e.message || "see the console"), "error"); };
  runner.postMessage({ type: "init", wheel, snapshot: document.body.dataset.snapshot });
}

function onRunner(msg) {
  if (msg.type === "ready") {
    if (state.readyMs === null) {
      state.readyMs = performance.now();
      // Where the start-up went, from the worker: Pyodide's runtime, the wheel, `import micrograd`,
      // and the runner (the explorer's modules); the rest is the page and the worker starting.
      state.boot = msg.phases;
      state.bootFiles = msg.files;
      state.bootFrom = msg.from;  // "snapshot" (the build's, restored) or "start"
      state.snapshotError = msg.snapshotError;
      const s = (ms) => (ms / 1000).toFixed(1);
      const p = msg.phases;
      $("ready-time").textContent = `· Python ready in ${s(state.readyMs)} s ` +
        `(${msg.from === "snapshot" ? "restored from the build's snapshot: " : ""}runtime ${s(p.runtime)} s, wheel ${s(p.wheel)} s, import micrograd ${s(p.micrograd)} s, ` +
        `explorer ${s(p.runner)} s)`;
      document.body.dataset.readyMs = String(Math.round(state.readyMs));
    }
    setStatus("Python ready", "ready");
    $("run").disabled = false;
    if (pending !== null) { const code = pending; pending = null; run(code); }
    // Nothing to run at open (a shared link waits for its click): the trainer may start now.
    else startTrainer();
  } else if (msg.type === "result" && msg.id === runId) {
    show(msg.result, msg.ms);
    if (pending !== null) { const code = pending; pending = null; run(code); }  // asked for while running
    // The training worker starts once the editor's Python has answered: the two do not compete
    // for the processor while the page's first result is on its way.
    startTrainer();
  } else if (msg.type === "failed") {
    setStatus("Python failed", "error");
    showError(msg.error);
  }
}

function run(code) {
  if (code === undefined) code = $("editor").value;
  $("link-notice").hidden = true;  // every run is a visitor's click or the page's own example
  state.sharedUnrun = false;
  if ($("run").disabled) { pending = code; return; }
  runId += 1;
  $("run").disabled = true; $("stop").disabled = false;
  setStatus("running…", "running");
  runner.postMessage({ type: "run", id: runId, code });
}

function stop() {
  runner.terminate();
  $("stop").disabled = true; $("run").disabled = true;
  runId += 1;
  showError("Stopped: Python was restarted (its variables are gone).");
  setStatus("restarting Python…", "loading");
  startRunner();
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = false;
}

function show(result, ms) {
  state.runs += 1;
  if (state.firstRunMs === null) state.firstRunMs = performance.now() - state.readyMs;  // for the tests' report
  $("run").disabled = false; $("stop").disabled = true;
  $("output").textContent = result.output;
  $("error").hidden = result.error === null;
  $("error").textContent = result.error || "";
  $("note").hidden = result.note === null;
  $("note").textContent = result.note || "";
  const body = $("values").querySelector("tbody");
  body.replaceChildren();
  for (const [name, data, grad] of result.values) {
    const tr = document.createElement("tr");
    tr.dataset.name = name;
    for (const cell of [name, String(data), String(grad)]) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  if (result.shown) {
    $("explorer").srcdoc = result.shown.html;
    $("explorer-title").textContent = `${result.shown.name}: ${result.shown.title}`;
  } else {
    $("explorer").srcdoc = "";
    $("explorer-title").textContent = "nothing to explore";
  }
  setStatus(result.error ? `error (ran in ${ms.toFixed(0)} ms)` : `ran in ${ms.toFixed(0)} ms`,
            result.error ? "error" : "ready");
  document.body.dataset.runs = String(state.runs);
}

// ---- wiring ----------------------------------------------------------------------------------

$("run").addEventListener("click", () => run());
$("stop").addEventListener("click", stop);
$("share").addEventListener("click", share);
$("example").addEventListener("click", () => { $("editor").value = DEFAULT_CODE; run(); });
$("editor").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
  else if (e.key === "Tab" && !e.shiftKey) {
    e.preventDefault();
    const t = e.target, at = t.selectionStart;
    t.setRangeText("    ", at, t.selectionEnd, "end");
  }
});
// A link opened on this page (the fragment changed) is loaded like one the page opened with: shown, not run.
window.addEventListener("hashchange", () => {
  const code = codeFromHash();
  if (code === undefined) brokenLink();
  else if (code !== null && code !== $("editor").value) loadShared(code);
});

// The page's own example runs as soon as Python is ready; a shared link's code never runs on its own.
// A link is anyone's code (it can call js.fetch, read the page's storage, ...): the visitor reads
// it and presses Run first.
const shared = codeFromHash();
// Opened on the microgpt or lab tab, the page starts this tab's Python only when the tab is first
// shown: a classroom laptop need not run Pythons for a tab nobody has opened (the lab has two).
const openedOn = new URL(location.href).searchParams.get("tab");
if (openedOn === "gpt" || openedOn === "lab") {
  document.addEventListener("playground-tab", function firstShown(e) {
    if (e.detail === "gpt" || e.detail === "lab") return;
    document.removeEventListener("playground-tab", firstShown);
    startRunner();
  });
} else startRunner();
if (typeof shared === "string") loadShared(shared);
else {
  if (shared === undefined) brokenLink();  // said, then the page's own example as without a link
  $("editor").value = DEFAULT_CODE;
  run();
}
