// The editor's worker: its own Pyodide; runs the code it is sent with runner.py's run() and posts
// back what to show (printed output, the traceback, the explorer's page) as JSON.
import { boot, serve } from "./boot.mjs";

serve(async (init) => {
  const { py, ms } = await boot(init.wheel, ["runner.py"]);
  const run = py.runPython("import json, runner\nlambda code: json.dumps(runner.run(code))");
  postMessage({ type: "ready", ms });
  return { py, run };
}, async ({ run }, msg) => {
  if (msg.type !== "run") return;
  const started = performance.now();
  const json = run(msg.code);
  postMessage({ type: "result", id: msg.id, result: JSON.parse(json), ms: performance.now() - started });
});
