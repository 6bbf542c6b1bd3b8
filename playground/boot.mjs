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
  await unzip(py, await (await fetch(here(wheel))).arrayBuffer(), "/home/pyodide");
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
  // a server that says the file is gzip-encoded has had the browser unpack it already
  const memory = /gzip/.test(response.headers.get("Content-Encoding") || "") ? response.arrayBuffer()
    : new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer()
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

// The files of ``zip`` (a wheel) written under ``folder``, where Pyodide's unpackArchive(buffer,
// "wheel") puts them, without Python: after a restore, Python's unpacking runs interpreter code no
// one has run yet in this page, which WebAssembly compiles first (0.1-0.2 s; here ~10 ms). The zip's
// central directory gives each file's name, sizes and where it starts. The build stores the wheel's
// files rather than deflating them, so each is a slice of the download; a deflated one (as pip
// writes them) goes through a DecompressionStream, which for this wheel's ~100 files is ~0.1 s.
async function unzip(py, zip, folder) {
  const bytes = new Uint8Array(zip), view = new DataView(zip);
  let end = bytes.length - 22;  // the end-of-central-directory record, after a comment if any
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error("the wheel is not a zip file");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const files = [];
  for (let k = 0; k < count; k++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error("the wheel's zip directory is damaged");
    const method = view.getUint16(at + 10, true), size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    const header = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
    files.push({ name, method, data: bytes.subarray(start, start + size) });
    at += 46 + skip;
  }
  const contents = await Promise.all(files.map(({ method, data }) => {
    if (method === 0) return data;
    if (method !== 8) throw new Error(`the wheel has a file compressed by method ${method}`);
    const inflated = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Response(inflated).arrayBuffer().then((b) => new Uint8Array(b));
  }));
  files.forEach(({ name }, k) => {
    if (name.endsWith("/")) return py.FS.mkdirTree(`${folder}/${name}`);
    py.FS.mkdirTree(`${folder}/${name.slice(0, name.lastIndexOf("/") + 1)}`);
    py.FS.writeFile(`${folder}/${name}`, contents[k]);
  });
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
        // A Python exception (Pyodide's PythonError, which names its class in ``type``) carries
        // Python's traceback as its message, the last line Python's own words; its JS stack only
        // says where this loop called Python, so it is sent apart, for the console.
        const python = err instanceof Error && typeof err.type === "string";
        const stack = String(err && err.stack ? err.stack : err);
        postMessage({ type: "failed", error: python ? err.message : stack, stack });
      }
    }
    busy = false;
  }
  self.onmessage = (e) => { queue.push(e.data); drain(); };
}
