"""The playground's build, without a browser (issue 35's start-up work): the wheel the page unpacks
is pip's wheel with its files stored, the memory snapshot (``playground/snapshot.mjs``, run with
Node) restores in Node with micrograd and the runners imported, and without Node the build says why
and makes a page that starts Python the usual way.  The browser's side (the snapshot restored, the
fallback when it is missing or damaged) is in test_playground.py."""

from __future__ import annotations

import gzip
import importlib.util
import json
import shutil
import subprocess
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _builder() -> ModuleType:
    script = ROOT / "scripts" / "build_playground.py"
    spec = importlib.util.spec_from_file_location("build_playground", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_wheel_is_stored_with_the_same_files(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": b"x = 1\n" * 200,
        "pkg/assets/a.js": b"'use strict';\n" * 50,
        "pkg-1.0.dist-info/RECORD": b"pkg/__init__.py,sha256=...,1200\n",
    }
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    stored = _builder().store(wheel, tmp_path / "out.whl")
    with zipfile.ZipFile(stored) as z:
        assert z.testzip() is None
        assert [i.filename for i in z.infolist()] == list(files)
        assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
        assert {name: z.read(name) for name in files} == files


def test_without_node_there_is_no_snapshot_and_the_build_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    builder = _builder()
    monkeypatch.setattr(builder.shutil, "which", lambda name: None)
    assert builder.make_snapshot(tmp_path, tmp_path / "some.whl") == ""
    assert "no memory snapshot: node is not on PATH" in capsys.readouterr().err


# (the build installs Pyodide into playground/node_modules with npm when it is not there: checked when the
# test runs, not when it is collected, since the playground's other tests may install it first)
@pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None,
    reason="node or npm is not on PATH: the build needs them to install Pyodide and make the snapshot",
)
@pytest.mark.slow  # the whole build, Pyodide started twice in node: tens of seconds
def test_the_snapshot_restores_in_node_with_the_engine_imported(tmp_path: Path) -> None:
    out = tmp_path / "playground"
    page = _builder().build(out).read_text(encoding="utf-8")
    assert 'data-snapshot="pyodide/python.snapshot.gz"' in page
    memory = gzip.decompress((out / "pyodide" / "python.snapshot.gz").read_bytes())
    (tmp_path / "memory").write_bytes(memory)
    script = tmp_path / "restore.mjs"
    script.write_text(
        f"""
import fs from "node:fs";
const {{ loadPyodide }} = await import({json.dumps((out / "pyodide" / "pyodide.mjs").as_uri())});
const memory = new Uint8Array(fs.readFileSync({json.dumps(str(tmp_path / "memory"))}));
const py = await loadPyodide({{ indexURL: {json.dumps(str(out / "pyodide") + "/")}, _loadSnapshot: memory }});
console.log(py.runPython(`
import json, sys
from micrograd import Value
a = Value(2.0); b = a * a + a; b.backward()
imported = [m in sys.modules for m in ("micrograd", "runner", "trainer", "gpt_runner", "live_training")]
json.dumps([imported, a.grad, sys.path[:1]])
`));
"""
    )
    done = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=300, check=True)
    imported, grad, path = json.loads(done.stdout.strip().splitlines()[-1])
    # imported by the build; sys.path as a start leaves it, before the page adds its folder
    assert imported == [True] * 5 and grad == 5.0 and path == [""]
