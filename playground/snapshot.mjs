// Build step (scripts/build_playground.py runs it with Node): a memory snapshot of the playground's
// Python, started and with the engine and the workers' Python files already imported, so a worker
// restores it instead of starting Python (issue 35: "Python ready" in about a second, not four).
//
//     node snapshot.mjs OUT WHEEL MODULE...
//
// OUT is the built playground (its pyodide/ folder, WHEEL and each MODULE.py beside the page are
// read from there); the snapshot goes to OUT/pyodide/python.snapshot.gz, gzip-compressed (mostly
// zeros: 30 MB in, about 6 MB out; gzip's checksum also makes a damaged file fail to load rather
// than start a broken Python). The worker (boot.mjs) falls back to a normal start when the file is
// missing or does not restore.
//
// The memory holds Python's state only: the file system is the page's, laid again on restore (the
// standard library by Pyodide, the wheel and the .py files by boot.mjs), so they must be the same
// files, and they are: the build writes them all together. What would differ from a start in the
// browser is put as the browser has it: sys.path as Pyodide leaves it before the page adds its
// folder, and sys.executable as a browser names it; boot.mjs reseeds `random` and names the
// browser in sys._emscripten_info after restoring.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";

const [out, wheel, ...modules] = process.argv.slice(2);
if (!out || !wheel) {
  console.error("usage: node snapshot.mjs OUT WHEEL MODULE...");
  process.exit(2);
}
const runtime = path.resolve(out, "pyodide");
const { loadPyodide } = await import(pathToFileURL(path.join(runtime, "pyodide.mjs")).href);

const py = await loadPyodide({
  indexURL: runtime + path.sep,
  packages: [],
  _makeSnapshot: true,
  _sysExecutable: "./this.program", // a browser's name for the program (Node's would be this script's path)
});
const heap = py._module.HEAP8.length;
py.unpackArchive(new Uint8Array(fs.readFileSync(path.join(out, wheel))), "wheel");
for (const name of modules) {
  py.FS.writeFile(`/home/pyodide/${name}.py`, fs.readFileSync(path.join(out, `${name}.py`), "utf8"));
}
const names = JSON.stringify(modules);
py.runPython(`
import importlib, sys
sys.path.insert(0, "/home/pyodide")
import micrograd
for name in ${names}:
    importlib.import_module(name)
# as Pyodide's start leaves it before finishing (which adds "") and before boot.mjs adds the page's folder
sys.path.remove("/home/pyodide")
sys.path.remove("")
`);
// Pyodide restores into a heap of the size a fresh start has: a snapshot of a heap that grew would not fit.
if (py._module.HEAP8.length !== heap) {
  console.error(`snapshot.mjs: Python's heap grew from ${heap} to ${py._module.HEAP8.length} bytes; no snapshot`);
  process.exit(1);
}
const snapshot = py.makeMemorySnapshot();
const target = path.join(runtime, "python.snapshot.gz");
fs.writeFileSync(target, zlib.gzipSync(snapshot, { level: 9 }));
console.log(`snapshot.mjs: ${target} (${snapshot.length} bytes of memory, ${fs.statSync(target).size} gzipped)`);
