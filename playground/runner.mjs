// The editor's worker: its own Pyodide; runs the code it is sent with runner.py's run() and posts
// back what to show (printed output, the traceback, the explorer's page) as JSON.
import { boot, serve, timed } from "./boot.mjs";

serve(async (init) => {
  const started = performance.now();
  const { py, phases, files, from, snapshotError } = await boot(init.wheel, ["runner.py"], init.snapshot);
  // Imports timed apart: the engine (what `import micrograd` loads), then the runner, which adds
  // the explorer (micrograd.viz) it shows every Value in.
  timed(py, phases, "micrograd", "import micrograd");
  const run = timed(py, phases, "runner", "import json, runner\nlambda code: json.dumps(runner.run(code))");
  postMessage({ type: "ready", ms: performance.now() - started, phases, files, from, snapshotError });
  return { py, run };
}, async ({ run }, msg) => {
  if (msg.type !== "run") return;
  const started = performance.now();
  const json = run(msg.code);
  postMessage({ type: "result", id: msg.id, result: JSON.parse(json), ms: performance.now() - started });
});
