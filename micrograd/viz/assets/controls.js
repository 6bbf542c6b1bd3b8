"use strict";
// The step controls of a page: o.show(i) shows frame i (clamped by the page), o.frame() is the
// frame shown, o.last the last one; o.keys({go, speed}) returns the page's own keys; o.step(i, d),
// if given, is the frame one step after (d = 1) or before (d = -1) frame i (else i + d).
// Returns {go, pause, speed}: go(i) stops playing and shows frame i.
function mgControls(o) {
  const $ = (id) => document.getElementById(id);
  const step = (d) => (o.step ? o.step(o.frame(), d) : o.frame() + d);
  let timer = null;
  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null; $("play").textContent = "▶ play"; $("play").classList.remove("on");
  }
  function play() {
    if (o.frame() === o.last) o.show(0);
    pause();
    timer = setInterval(() => {
      o.show(step(1));
      if (o.frame() >= o.last) pause();  // at the end: the button offers to play again
    }, 1000 / Number($("speed").value));
    $("play").textContent = "⏸ pause"; $("play").classList.add("on");
  }
  function toggle() { if (timer === null) play(); else pause(); }
  function speed(dir) {  // the next faster (1) or slower (-1) speed of the list
    const s = $("speed");
    s.selectedIndex = Math.max(0, Math.min(s.options.length - 1, s.selectedIndex + dir));
    if (timer !== null) play();
  }
  function go(i) { pause(); o.show(i); }
  $("scrub").max = String(o.last);
  $("scrub").addEventListener("input", () => go(Number($("scrub").value)));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(step(-1)));
  $("next").addEventListener("click", () => go(step(1)));
  $("last").addEventListener("click", () => go(o.last));
  $("play").addEventListener("click", toggle);
  $("speed").addEventListener("change", () => { if (timer !== null) play(); });
  const keys = {
    ArrowRight: () => go(step(1)), ArrowLeft: () => go(step(-1)), " ": toggle,
    Home: () => go(0), End: () => go(o.last), ...(o.keys ? o.keys({go, speed}) : {}),
  };
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  return {go, pause, speed};
}
