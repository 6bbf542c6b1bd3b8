// The training worker: its own Pyodide running nn.live.LiveTraining. While playing it trains in
// slices of ~500 ms (full-batch steps with the eager engine), then posts the new losses, the
// decision boundary's grid and the measured steps per second; messages are handled between slices.
import { boot, serve } from "./boot.mjs";

const GRID = 20;
const SLICE = 0.5;  // seconds of training between two updates of the page
let playing = false, timer = null;
let rate = { steps: 0, ms: 0 };  // over the current run of play, grid and messages included

serve(async (init) => {
  const { py, ms } = await boot(init.wheel);
  py.runPython(`
import json, math, time
from nn.live import BOUNDS, LiveTraining

live = LiveTraining()

def train_for(seconds, limit):
    start, new = time.perf_counter(), []
    while len(new) < limit:
        loss = live.step()
        if math.isnan(loss):
            break
        new.append(loss)
        if time.perf_counter() - start >= seconds:
            break
    return new

def state():
    return json.dumps({"points": live.points, "labels": live.labels, "steps": live.steps,
                       "history": len(live.history), "grid": live.grid(${GRID}),
                       "n": ${GRID}, "bounds": BOUNDS, "accuracy": live.accuracy(), "lr": live.lr})
`);
  const g = py.globals;
  const api = { py, train: g.get("train_for"), state: g.get("state"), live: g.get("live") };
  postMessage({ type: "ready", ms });
  post(api, []);
  return api;
}, async (api, msg) => {
  switch (msg.type) {
    case "init": return;
    case "play": if (!playing) { playing = true; rate = { steps: 0, ms: 0 }; schedule(api); } return;
    case "pause": playing = false; post(api, []); return;
    case "step": post(api, trainSlice(api, 0, 1)); return;
    case "reset": api.live.reset_model(); post(api, [], true); return;
    case "new-data": api.py.runPython("live = LiveTraining(lr=live.lr)"); api.live = api.py.globals.get("live");
      post(api, [], true); return;
    case "lr": api.live.set_lr(Number(msg.value)); return;
    case "add": api.live.add(msg.x, msg.y, msg.label); post(api, []); return;
    case "remove": api.live.remove_nearest(msg.x, msg.y); post(api, []); return;
    case "tick": if (playing) { const t0 = performance.now(); const n = trainSlice(api, SLICE, 1000);
      post(api, n); rate.steps += n.length; rate.ms += performance.now() - t0;
      if (n.length === 0) playing = false; schedule(api); } return;
  }
});

function trainSlice(api, seconds, limit) {
  const proxy = api.train(seconds, limit);
  const losses = proxy.toJs();
  proxy.destroy();
  return losses;
}

function post(api, losses, reset = false) {
  const s = JSON.parse(api.state());
  s.losses = losses; s.type = "state"; s.playing = playing; s.reset = reset;
  s.stepsPerSecond = rate.ms > 0 ? rate.steps / (rate.ms / 1000) : null;
  postMessage(s);
}

// The next slice goes through the message queue, so pause, clicks and the rate are seen in between.
function schedule() {
  clearTimeout(timer);
  if (playing) timer = setTimeout(() => self.onmessage({ data: { type: "tick" } }), 0);
}
