// Pictures of the training tab on canvases: a grid of numbers as a heatmap (orange below 0, blue
// above, stronger further from 0), the points, and the training and test loss curves.
const ORANGE = [232, 89, 12], BLUE = [28, 126, 214];
const cells = document.createElement("canvas");  // a grid, one pixel a cell, scaled up smoothly

// ``values``: n*n numbers row by row from the top (null: not a number, drawn grey); ``faded``: paler.
export function drawHeatmap(canvas, values, n, faded) {
  cells.width = n; cells.height = n;
  const cctx = cells.getContext("2d"), image = cctx.createImageData(n, n);
  for (let k = 0; k < n * n; k++) {
    const s = values[k];
    const rgb = s === null ? [134, 142, 150] : s > 0 ? BLUE : ORANGE;
    const a = (faded ? 0.4 : 1) * (s === null ? 0.5 : 0.1 + 0.6 * Math.min(1, Math.abs(s)));
    for (let c = 0; c < 3; c++) image.data[4 * k + c] = Math.round(255 - a * (255 - rgb[c]));
    image.data[4 * k + 3] = 255;
  }
  cctx.putImageData(image, 0, 0);
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(cells, 0, 0, canvas.width, canvas.height);
}

// ``points``: [x, y, label, test]; test points have a dark ring, training points a white one.
export function drawPoints(ctx, canvas, points, bounds, colours) {
  const [x0, x1, y0, y1] = bounds;
  for (const [x, y, label, test] of points) {
    const px = (x - x0) / (x1 - x0) * canvas.width, py = (y1 - y) / (y1 - y0) * canvas.height;
    ctx.beginPath();
    ctx.arc(px, py, 4, 0, 2 * Math.PI);
    ctx.fillStyle = colours[label];
    ctx.fill();
    ctx.lineWidth = test ? 1.6 : 1.1;
    ctx.strokeStyle = test ? "#212529" : "#fff";
    ctx.stroke();
  }
}

// ``curve``: [step, training loss, test loss] (null: none, e.g. no test set).
export function drawCurves(canvas, curve) {
  const ctx = canvas.getContext("2d"), pad = 26;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.font = "11px system-ui, sans-serif";
  ctx.fillStyle = "#495057";
  const losses = curve.flatMap((e) => [e[1], e[2]]).filter((v) => v !== null);
  if (curve.length < 2 || !losses.length) { ctx.fillText("loss: press Train or Step", 10, 20); return; }
  const top = Math.max(...losses) * 1.05 || 1, last = curve[curve.length - 1][0] || 1;
  ctx.fillText(`loss (max ${top.toFixed(3)}) over ${last} steps:`, 8, 14);
  ctx.fillStyle = "#212529"; ctx.fillText("training", 200, 14);
  ctx.fillStyle = "#c92a2a"; ctx.fillText("test", 260, 14);
  ctx.strokeStyle = "#dee2e6"; ctx.lineWidth = 1; ctx.beginPath();
  ctx.moveTo(pad, canvas.height - pad); ctx.lineTo(canvas.width - 6, canvas.height - pad); ctx.stroke();
  for (const [k, colour] of [[1, "#212529"], [2, "#c92a2a"]]) {
    ctx.strokeStyle = colour; ctx.lineWidth = 1.5; ctx.beginPath();
    let started = false;
    for (const e of curve) {
      if (e[k] === null) continue;
      const x = pad + (canvas.width - pad - 6) * (e[0] / last);
      const y = canvas.height - pad - (canvas.height - pad - 22) * (e[k] / top);
      if (started) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      started = true;
    }
    ctx.stroke();
  }
}
