// The lab's grader worker: its own Pyodide, where the learner's code never runs. It grades the
// answers the learner worker recorded (lab_grader.grade: check_engine's own plan, references and
// lines) and draws the learner's graph, sent as data, with the explorer's layout.
import { boot, serve } from "./boot.mjs";

serve(async (init) => {
  const { py, ms, from } = await boot(init.wheel, ["lab_grader.py"], init.snapshot);
  py.runPython("import json, lab_grader\nfrom micrograd.exercises.engine import refs");
  postMessage({ type: "ready", ms, from });
  return { py, grader: py.globals.get("lab_grader"), json: py.globals.get("json") };
}, async (api, msg) => {
  if (msg.type === "grade") {
    const result = call(api, "grade", msg.name, msg.texts, msg.only, msg.end, msg.seconds);
    postMessage({ type: "graded", id: msg.id, result });
  } else if (msg.type === "picture") {
    postMessage({ type: "picture", id: msg.id, result: call(api, "picture", msg.data, msg.spec) });
  }
});

function call(api, name, ...args) {
  const fn = api.grader[name];
  const result = fn(...args.map((a) => api.json.loads(JSON.stringify(a))));
  fn.destroy();
  const dumps = api.json.dumps;
  const text = dumps(result);
  dumps.destroy(); result.destroy();
  return JSON.parse(text);
}
