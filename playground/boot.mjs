// Start Pyodide in a worker from the files beside the page (never the network) and install this
// project's wheel into it: the runtime from ./pyodide/, the wheel fetched from this folder.
import { loadPyodide } from "./pyodide/pyodide.mjs";

// Returns the runtime, the total time and its parts (ms), so the page can say where start-up goes:
// ``runtime`` (Pyodide's WebAssembly and standard library, fetched and started) and ``wheel``
// (this project's wheel fetched and unpacked, with the extra files).
export async function boot(wheel, extraFiles = []) {
  const here = (name) => new URL(name, import.meta.url).href;
  const started = performance.now();
  const py = await loadPyodide({ indexURL: here("./pyodide/"), packages: [] });
  const loaded = performance.now();
  const buffer = await (await fetch(here(wheel))).arrayBuffer();
  py.unpackArchive(buffer, "wheel");
  for (const name of extraFiles) {
    const text = await (await fetch(here(name))).text();
    py.FS.writeFile(`/home/pyodide/${name}`, text);
  }
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide')");
  const now = performance.now();
  return { py, ms: now - started, phases: { runtime: loaded - started, wheel: now - loaded }, files: fetched() };
}

// How long each file this worker fetched took to arrive (ms, Resource Timing): the runtime's share of
// start-up that is the transfer, the rest being WebAssembly compiled and Python started.
function fetched() {
  const files = {};
  for (const e of performance.getEntriesByType("resource")) {
    files[e.name.split("/").pop()] = { ms: e.responseEnd - e.startTime, bytes: e.encodedBodySize };
  }
  return files;
}

// Run ``code`` in ``py`` and add how long it took (ms) to ``phases[name]``.
export function timed(py, phases, name, code) {
  const t0 = performance.now();
  const result = py.runPython(code);
  phases[name] = performance.now() - t0;
  return result;
}

// Run handler(message) for each message, in order, once boot has finished.
export function serve(start, handler) {
  let ready = null;
  const queue = [];
  let busy = false;
  async function drain() {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const msg = queue.shift();
      try {
        if (ready === null) ready = start(msg);
        await handler(await ready, msg);
      } catch (err) {
        postMessage({ type: "failed", error: String(err && err.stack ? err.stack : err) });
      }
    }
    busy = false;
  }
  self.onmessage = (e) => { queue.push(e.data); drain(); };
}
