"use strict";
(function () {
  const D = JSON.parse(document.getElementById("mg-data").textContent);
  const $ = (id) => document.getElementById(id);
  const F = D.frames.length, STEPS = D.loss.length;
  const CLASS = ["#e03131", "#1971c2", "#2f9e44", "#f08c00", "#7048e8", "#0c8599"];
  const REGION = [[255, 201, 201], [165, 216, 255], [178, 242, 187], [255, 216, 168], [208, 191, 255],
                  [153, 233, 242]];
  let frame = 0;
  const num = (x) => typeof x === "number" ? x : Number(x);

  // Which boundary each frame shows: the latest computed at or before it.
  const boundaryOf = [];
  for (let i = 0, b = -1; i < F; i++) {
    while (b + 1 < D.boundaries.length && D.boundaries[b + 1].frame <= i) b++;
    boundaryOf.push(b);
  }

  // Heat maps: one block per layer, one row per neuron, one cell per parameter.
  function heat(container) {
    const cells = [], blocks = {}, rows = {};
    D.names.forEach((name, i) => {
      const [block, row] = D.groups[i];
      if (!blocks[block]) {
        const b = document.createElement("div"); b.className = "block";
        const h = document.createElement("h3"); h.textContent = block; b.appendChild(h);
        container.appendChild(b); blocks[block] = b;
      }
      const key = block + "|" + row;
      if (!rows[key]) {
        const r = document.createElement("div"); r.className = "row"; r.title = row;
        blocks[block].appendChild(r); rows[key] = r;
      }
      const c = document.createElement("div"); c.className = "cell";
      c.addEventListener("mouseenter", () => describe(i));
      rows[key].appendChild(c); cells.push(c);
    });
    return cells;
  }
  const wCells = heat($("weights")), gCells = heat($("grads"));
  let wMax = 0;
  for (const f of D.frames)
    for (const w of f.weights) if (isFinite(num(w))) wMax = Math.max(wMax, Math.abs(num(w)));
  function colour(x, scale) {
    x = num(x);
    if (!isFinite(x)) return "#212529";
    const t = scale > 0 ? Math.max(-1, Math.min(1, x / scale)) : 0;
    const [r, g, b] = t >= 0 ? [25, 113, 194] : [224, 49, 49];
    const a = Math.abs(t);
    const mix = (v) => Math.round(255 + (v - 255) * a);
    return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
  }
  function describe(i) {
    const f = D.frames[frame];
    const g = f.grads ? f.grads[i] : "(none after the last step)";
    $("param").textContent = `${D.names[i]} = ${f.weights[i]}   grad ${g}`;
    $("param").setAttribute("data-param", String(i));
  }

  function drawCurve(canvas, values, text, logScale, lo, hi, colour_) {
    const ctx = canvas.getContext("2d"), W = canvas.width, H = canvas.height, P = 28;
    ctx.clearRect(0, 0, W, H);
    const ys = values.map(num);
    const finite = ys.filter((y) => isFinite(y) && (!logScale || y > 0));
    if (lo === null) { lo = Math.min(...finite); hi = Math.max(...finite); }
    const tf = (y) => logScale ? Math.log10(y) : y;
    let a = tf(lo), b = tf(hi);
    if (!(b > a)) { a -= 1; b += 1; }
    const X = (k) => P + (W - P - 8) * (STEPS > 1 ? k / (STEPS - 1 + (D.final ? 1 : 0)) : 0.5);
    const Y = (y) => H - 14 - (H - 24) * (tf(y) - a) / (b - a);
    ctx.strokeStyle = "#dee2e6"; ctx.fillStyle = "#868e96"; ctx.font = "10px system-ui, sans-serif";
    ctx.beginPath(); ctx.moveTo(P, 6); ctx.lineTo(P, H - 14); ctx.lineTo(W - 4, H - 14); ctx.stroke();
    ctx.fillText(text(hi), 2, 12); ctx.fillText(text(lo), 2, H - 16);
    ctx.fillText("step 1", P, H - 3);
    const endText = D.final ? "trained" : "step " + STEPS;
    ctx.fillText(endText, W - 6 - ctx.measureText(endText).width, H - 3);
    ctx.strokeStyle = colour_; ctx.lineWidth = 1.5; ctx.beginPath();
    let started = false;
    ys.forEach((y, k) => {
      if (!isFinite(y) || (logScale && y <= 0)) { started = false; return; }
      if (started) ctx.lineTo(X(k), Y(y)); else { ctx.moveTo(X(k), Y(y)); started = true; }
    });
    ctx.stroke();
    return { X: X, Y: Y };
  }
  function curves() {
    const losses = D.loss.map(num).concat(D.final ? [num(D.final.loss)] : []);
    const pos = losses.filter((y) => isFinite(y) && y > 0);
    const logScale = pos.length === losses.length && Math.max(...pos) / Math.min(...pos) > 50;
    $("loss-caption").textContent = D.loss_name + (logScale ? " (log scale)" : "");
    const f = D.frames[frame], k = f.step === null ? STEPS : f.step;
    const l = drawCurve($("loss"), D.loss, (y) => y.toPrecision(3), logScale, null, null, "#1c7ed6");
    const a = drawCurve($("acc"), D.acc.map((x) => 100 * x), (y) => y.toFixed(0), false, 0, 100, "#2f9e44");
    for (const [c, m, y] of [[$("loss"), l, f.step === null ? D.final.loss : D.loss[k]],
                             [$("acc"), a, 100 * (f.step === null ? D.final.acc : D.acc[k])]]) {
      const ctx = c.getContext("2d");
      ctx.strokeStyle = "#e8590c"; ctx.lineWidth = 1; ctx.beginPath();
      ctx.moveTo(m.X(k), 4); ctx.lineTo(m.X(k), c.height - 14); ctx.stroke();
      if (isFinite(num(y)) && (c !== $("loss") || !logScale || num(y) > 0)) {
        ctx.fillStyle = "#e8590c"; ctx.beginPath();
        ctx.arc(m.X(k), m.Y(num(y)), 3.5, 0, 2 * Math.PI); ctx.fill();
      }
    }
  }

  const small = document.createElement("canvas");
  function boundary() {
    const canvas = $("boundary");
    if (!D.points.length) { $("boundary-fig").style.display = "none"; return; }
    const ctx = canvas.getContext("2d"), W = canvas.width, H = canvas.height, n = D.grid;
    const [x0, x1, y0, y1] = D.box;
    const bi = boundaryOf[frame], b = D.boundaries[bi];
    small.width = n; small.height = n;
    const sctx = small.getContext("2d"), img = sctx.createImageData(n, n);
    for (let i = 0; i < n * n; i++) {
      const rgb = REGION[b.classes[i] % REGION.length], s = 0.45 + 0.55 * b.strength[i];
      for (let j = 0; j < 3; j++) img.data[4 * i + j] = Math.round(255 + (rgb[j] - 255) * s);
      img.data[4 * i + 3] = 255;
    }
    sctx.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(small, 0, 0, W, H);
    D.points.forEach((p, i) => {
      ctx.beginPath();
      ctx.arc((p[0] - x0) / (x1 - x0) * W, (y1 - p[1]) / (y1 - y0) * H, 4, 0, 2 * Math.PI);
      ctx.fillStyle = CLASS[D.labels[i] % CLASS.length]; ctx.fill();
      ctx.strokeStyle = "#212529"; ctx.lineWidth = 0.8; ctx.stroke();
    });
    const bf = D.frames[b.frame];
    $("boundary-caption").textContent = "decision boundary " +
      (bf.step === null ? "of the trained model" : `at step ${bf.step + 1}`) +
      ` (the model on a ${n}×${n} grid; ${D.boundaries.length} of the steps have one)`;
  }

  function show(t) {
    frame = Math.max(0, Math.min(F - 1, t));
    $("scrub").value = String(frame);
    const f = D.frames[frame];
    if (f.step === null) {
      $("status").textContent = `after ${STEPS} steps: ${D.loss_name} ${D.final.loss_text}, ` +
        `accuracy ${D.final.acc_text}`;
    } else {
      $("status").textContent = `step ${f.step + 1} of ${STEPS}: ${D.loss_name} ${D.loss_text[f.step]}, ` +
        `accuracy ${D.acc_text[f.step]}`;
    }
    $("status").setAttribute("data-loss", f.step === null ? D.final.loss_text : D.loss_text[f.step]);
    let gMax = 0;
    if (f.grads) for (const g of f.grads) if (isFinite(num(g))) gMax = Math.max(gMax, Math.abs(num(g)));
    f.weights.forEach((w, i) => { wCells[i].style.background = colour(w, wMax); });
    gCells.forEach((c, i) => { c.style.background = f.grads ? colour(f.grads[i], gMax) : "#f1f3f5"; });
    $("weights-caption").textContent = `weights (blue > 0 > red; full colour at ±${wMax.toPrecision(3)})`;
    $("grads-caption").textContent = f.grads
      ? `gradients of this step (full colour at ±${gMax.toPrecision(3)})`
      : "gradients (none: the trained model takes no further step)";
    const p = $("param").getAttribute("data-param");
    if (p !== null) describe(Number(p));
    curves();
    boundary();
    $("prev").disabled = frame === 0; $("next").disabled = frame === F - 1;
  }

  function jumpTo(canvas, event) {
    const r = canvas.getBoundingClientRect(), P = 28, W = canvas.width;
    const x = (event.clientX - r.left) * W / r.width;
    const total = STEPS - 1 + (D.final ? 1 : 0);
    const k = Math.round((x - P) / (W - P - 8) * total);
    let best = 0;
    D.frames.forEach((f, i) => {
      const s = f.step === null ? STEPS : f.step;
      if (Math.abs(s - k) < Math.abs((D.frames[best].step ?? STEPS) - k)) best = i;
    });
    controls.go(best);
  }
  const controls = mgControls({show, frame: () => frame, last: F - 1});
  $("loss").addEventListener("click", (e) => jumpTo($("loss"), e));
  $("acc").addEventListener("click", (e) => jumpTo($("acc"), e));
  show(0);
  document.body.setAttribute("data-mg-ready", "1");
})();
