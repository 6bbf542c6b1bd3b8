// The lab's learner worker: its own Pyodide, where the learner's code runs (lab_runner.py) and
// nothing is decided. It sends raw answers, one JSON text each, as they come: the page relays them
// to the grader worker and stops this worker (terminates it) when one is late or on Stop.
import { boot, serve } from "./boot.mjs";

serve(async (init) => {
  const { py, ms, from } = await boot(init.wheel, ["lab_runner.py", "names.txt"], init.snapshot);
  py.runPython("import json, lab_runner");
  const runner = py.globals.get("lab_runner"), json = py.globals.get("json");
  postMessage({ type: "ready", ms, from });
  return { py, runner, json };
}, async (api, msg) => {
  if (msg.type === "init") return;
  const id = msg.id;
  // Every job loads the learner's file afresh: the class checked is the one in the editors now.
  const loaded = call(api, "load", msg.code);
  postMessage({ type: "loaded", id, ...loaded });
  if (!loaded.ok) return;
  switch (msg.type) {
    case "check": {
      const begin = api.runner.begin;
      begin(api.json.loads(JSON.stringify(msg.only)));
      begin.destroy();
      const next = api.runner.next_text;
      for (;;) {
        const text = next();
        if (text === undefined || text === null) break;
        postMessage({ type: "answer", id, text });
      }
      next.destroy();
      postMessage({ type: "answered", id });
      return;
    }
    case "graph":
      postMessage({ type: "graph", id, data: call(api, "graph", msg.spec) });
      return;
    case "gpt": return gpt(api, msg);
  }
});

// A Python function of lab_runner called with JSON-able arguments; its result as a plain object.
function call(api, name, ...args) {
  const fn = api.runner[name];
  const pyArgs = args.map((a) => (typeof a === "string" ? a : api.json.loads(JSON.stringify(a))));
  const result = fn(...pyArgs);
  fn.destroy();
  if (result === undefined || result === null || typeof result !== "object") return result;
  const dumps = api.json.dumps;
  const text = dumps(result);
  dumps.destroy(); result.destroy();
  return JSON.parse(text);
}

// microgpt trained on the learner's Value, one step a message (so the page draws every loss), then
// samples; then the built-in Value on the same weights and names for a few steps, for its speed.
function gpt(api, msg) {
  call(api, "gpt_start", msg.steps, "yours");
  for (let n = 0; n < msg.steps; n++) {
    const losses = call(api, "gpt_steps", 1);
    postMessage({ type: "gpt-step", id: msg.id, engine: "yours", losses, rate: call(api, "gpt_rate") });
  }
  postMessage({ type: "gpt-samples", id: msg.id, samples: call(api, "gpt_samples", 8, 0.5) });
  const compare = Math.min(msg.steps, msg.compare);
  call(api, "gpt_start", msg.steps, "built-in");
  const losses = call(api, "gpt_steps", compare);
  postMessage({ type: "gpt-builtin", id: msg.id, losses, rate: call(api, "gpt_rate") });
}
