"""What micrograd's HTML pages share: the head of the document and the step-through controls.

``explore``'s backpropagation page and ``nn.recorder``'s training replay are
each one self-contained file that shows one frame at a time under the same
header: buttons ``#first``, ``#prev``, ``#play``, ``#next`` and ``#last``, a
range ``#scrub``, a select ``#speed`` and the keys ← → (step), space (play /
pause), Home and End.  ``HEAD`` opens a page (its title ``%%TITLE%%``) up to
the inside of its ``<style>``, with the controls' look; ``SCRIPT`` defines
``mgControls``, which wires the controls to the page's own ``show(frame)``.
Each page keeps its own markup, titles and extra keys.

>>> HEAD.startswith("<!DOCTYPE html>") and "function mgControls(" in SCRIPT
True
"""

from __future__ import annotations

__all__ = ["HEAD", "SCRIPT"]

HEAD = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%%TITLE%%</title>
<style>
  * { box-sizing: border-box; }
  h1 { font-size: 16px; margin: 0 0 6px 0; font-weight: 600; }
  .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; }
  button { font: inherit; padding: 3px 10px; border: 1px solid #adb5bd; border-radius: 4px; background: #fff;
           cursor: pointer; min-width: 34px; }
  button:hover { background: #e9ecef; }
  button.on { background: #d0ebff; border-color: #1c7ed6; }
  .keys { color: #868e96; font-size: 12px; }"""

SCRIPT = r"""
"use strict";
// The step controls of a page: o.show(i) shows frame i (clamped by the page), o.frame() is the
// frame shown, o.last the last one; o.keys({go, speed}) returns the page's own keys.  Returns
// {go, pause, speed}: go(i) stops playing and shows frame i.
function mgControls(o) {
  const $ = (id) => document.getElementById(id);
  let timer = null;
  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null; $("play").textContent = "▶ play"; $("play").classList.remove("on");
  }
  function play() {
    if (o.frame() === o.last) o.show(0);
    pause();
    timer = setInterval(() => {
      o.show(o.frame() + 1);
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
  $("prev").addEventListener("click", () => go(o.frame() - 1));
  $("next").addEventListener("click", () => go(o.frame() + 1));
  $("last").addEventListener("click", () => go(o.last));
  $("play").addEventListener("click", toggle);
  $("speed").addEventListener("change", () => { if (timer !== null) play(); });
  const keys = {
    ArrowRight: () => go(o.frame() + 1), ArrowLeft: () => go(o.frame() - 1), " ": toggle,
    Home: () => go(0), End: () => go(o.last), ...(o.keys ? o.keys({go, speed}) : {}),
  };
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  return {go, pause, speed};
}
"""
