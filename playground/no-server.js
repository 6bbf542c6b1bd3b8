// The page opened as a file (file://): Chromium refuses the module scripts and Web Workers that
// start Python there, so playground.js never runs and the status would say "loading Python…"
// forever. This classic script does run from a file, and says at once how to serve the site.
// Only text goes into the page (textContent): the path comes from the URL.
"use strict";

(function () {
  if (location.protocol !== "file:") return;
  const status = document.getElementById("status");
  status.textContent = "not started: this page needs a web server";
  status.dataset.state = "error";
  // The site's folder is the one holding playground/: name it in the command, as this computer has it.
  const path = decodeURIComponent(location.pathname).replace(/\/playground\/(index\.html)?$/, "");
  const folder = path.replace(/^\/([A-Za-z]:\/)/, "$1");  // file:///C:/... on Windows
  if (folder && folder !== location.pathname) {
    const quoted = /^[\w@%+=:,./-]+$/.test(folder) ? folder : `"${folder.replace(/(["\\$`])/g, "\\$1")}"`;
    document.getElementById("file-command").textContent = `python -m http.server -d ${quoted}`;
  }
  // Nothing on the page can work without Python: its buttons say so by being off.
  for (const button of document.querySelectorAll("button")) button.disabled = true;
  document.getElementById("file-notice").hidden = false;
  document.body.dataset.fileNotice = "1";
})();
