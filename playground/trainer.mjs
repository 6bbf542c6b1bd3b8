// The training worker: its own Pyodide running trainer.py (live_training.LiveTraining on the real
// engine). While playing it trains in slices of ~250 ms, then posts what the page draws (every
// neuron's output on a grid, the points, the loss curves) and the measured steps per second;
// messages (controls, clicks, pause) are handled between slices.
import { boot, serve } from "./boot.mjs";

const SLICE = 0.25;  // seconds of training between two pictures
let playing = false, timer = null;
let rate = { steps: 0, ms: 0 };  // over the current run of play, the pictures and messages included

serve(async (init) => {
  const { py, ms, from } = await boot(init.wheel, ["trainer.py", "live_training.py"], init.snapshot);
  const t = py.pyimport("trainer");
  // a share link's set-up, as JSON text: trainer.py checks every field and says what it refused
  // (no link: no argument, as JavaScript's null would reach Python as JsNull, not None)
  const refused = typeof init.state === "string" ? t.start(init.state) : t.start();
  postMessage({ type: "ready", ms, refused, from });
  post(t);
  return t;
}, async (t, msg) => {
  switch (msg.type) {
    case "init": return;
    case "play": if (!playing) { playing = true; rate = { steps: 0, ms: 0 }; schedule(); } return;
    case "pause": playing = false; post(t); return;
    case "step": t.train_for(0, 1); post(t); return;
    case "reset": t.reset(); post(t); return;
    case "new-data": t.new_data(); post(t); return;
    case "change": {
      const answer = JSON.parse(t.change(JSON.stringify(msg.changes)));
      if (answer.error) postMessage({ type: "refused", error: answer.error });
      post(t); return;
    }
    case "load": {
      const refused = t.load(msg.state);
      if (refused) postMessage({ type: "refused", error: refused, link: true });
      playing = false; post(t); return;
    }
    case "add": t.add(msg.x, msg.y, msg.label); post(t); return;
    case "remove": t.remove(msg.x, msg.y); post(t); return;
    case "explore": {
      playing = false;
      const started = performance.now();
      const page = JSON.parse(t.explore());
      page.type = "explored"; page.ms = performance.now() - started;
      postMessage(page); post(t); return;
    }
    case "tick": if (playing) {
      const t0 = performance.now();
      const made = t.train_for(SLICE, 100000);
      post(t);
      rate.steps += made; rate.ms += performance.now() - t0;
      if (made === 0) playing = false;
      schedule();
    } return;
  }
});

function post(t) {
  const s = JSON.parse(t.snapshot());
  s.type = "state"; s.playing = playing;
  s.stepsPerSecond = rate.ms > 0 ? rate.steps / (rate.ms / 1000) : null;
  postMessage(s);
}

// The next slice goes through the message queue, so pause, clicks and the controls are seen in between.
function schedule() {
  clearTimeout(timer);
  if (playing) timer = setTimeout(() => self.onmessage({ data: { type: "tick" } }), 0);
}
