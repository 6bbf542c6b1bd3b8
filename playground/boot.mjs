// Start Pyodide in a worker from the files beside the page (never the network) and install this
// project's wheel into it: the runtime from ./pyodide/, the wheel fetched from this folder.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const here = (name) => new URL(name, import.meta.url).href;

// Returns the runtime, the total time and its parts (ms), so the page can say where start-up goes:
// ``runtime`` (Pyodide's WebAssembly and standard library, fetched, and Python started or restored)
// and ``wheel`` (this project's wheel fetched and unpacked, with the extra files); ``from`` says
// which: "snapshot" (the build's memory snapshot restored: Python already started, micrograd and
// the page's runners already imported) or "start" (Python started here, as when the page has no
// snapshot or it did not restore: ``snapshotError`` then says why).
export async function boot(wheel, extraFiles = [], snapshot = "") {
  const started = performance.now();
  let py = null, from = "start", snapshotError = null;
  if (snapshot) {
    try {
      py = await restore(here(snapshot));
      from = "snapshot";
    } catch (err) {
      snapshotError = String(err && err.message ? err.message : err);
      console.warn(`playground: the snapshot did not restore (${snapshotError}); starting Python instead`);
    }
  }
  if (py === null) py = await loadPyodide({ indexURL: here("./pyodide/"), packages: [] });
  const loaded = performance.now();
  const buffer = await (await fetch(here(wheel))).arrayBuffer();
  py.unpackArchive(buffer, "wheel");
  for (const name of extraFiles) {
    const text = await (await fetch(here(name))).text();
    py.FS.writeFile(`/home/pyodide/${name}`, text);
  }
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide')");
  const now = performance.now();
  return {
    py, ms: now - started, phases: { runtime: loaded - started, wheel: now - loaded }, files: fetched(),
    from, snapshotError,
  };
}

// Pyodide restored from the build's memory snapshot (snapshot.mjs): gzip, unpacked as it arrives,
// while Pyodide fetches and compiles its WebAssembly. Throws if the file is missing, damaged (gzip's
// checksum) or not of this runtime (Pyodide checks its build id), or if Python fails its first
// lines after; the caller then starts Python the usual way.
async function restore(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const memory = new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer()
    .catch((err) => { throw new Error(`${url} did not unpack (${err.message || err}): damaged or cut short`); });
  memory.catch(() => {});  // its error is loadPyodide's, below
  const py = await loadPyodide({ indexURL: here("./pyodide/"), packages: [], _loadSnapshot: memory });
  // What the snapshot has from the build that a visitor's own start would not: the state of
  // `random` (every visitor would draw the same numbers), the runtime's name (Node's) and LANG
  // (Node's; a browser's start has the visitor's language, as Emscripten writes it).
  const scope = py.toPy({});  // not __main__'s: nothing of this is left for the visitor's code
  py.runPython(`
def after_restore(runtime, lang):
    import os, random, sys
    random.seed()
    os.environ["LANG"] = lang
    info = sys._emscripten_info
    sys._emscripten_info = type(info)((info.emscripten_version, runtime, info.pthreads, info.shared_memory))
`, { globals: scope });
  const after = scope.get("after_restore");
  after(navigator.userAgent, `${(navigator.language || "C").replace("-", "_")}.UTF-8`);
  after.destroy();
  scope.destroy();
  return py;
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
