// Start Pyodide in a worker from the files beside the page (never the network) and install this
// project's wheel into it: the runtime from ./pyodide/, the wheel fetched from this folder.
import { loadPyodide } from "./pyodide/pyodide.mjs";

export async function boot(wheel, extraFiles = []) {
  const here = (name) => new URL(name, import.meta.url).href;
  const started = performance.now();
  const py = await loadPyodide({ indexURL: here("./pyodide/"), packages: [] });
  const buffer = await (await fetch(here(wheel))).arrayBuffer();
  py.unpackArchive(buffer, "wheel");
  for (const name of extraFiles) {
    const text = await (await fetch(here(name))).text();
    py.FS.writeFile(`/home/pyodide/${name}`, text);
  }
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide')");
  return { py, ms: performance.now() - started };
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
