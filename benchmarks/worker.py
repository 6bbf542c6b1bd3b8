"""Run one workload once, in this process, and write its result as JSON.

Started by ``benchmarks.run`` as a script (``python benchmarks/worker.py``),
never as ``-m``: then this folder, not the repository root, heads
``sys.path``, and ``micrograd`` is whichever engine PYTHONPATH points at.
The worker checks that, so a mix-up cannot silently benchmark the wrong one.

    python benchmarks/worker.py workloads:train_step --params '{"n_points": 10, "steps": 2}' \\
        --engine-dir benchmarks/.micrograd-0.1.0 --out result.json
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any


def _engine_info(engine_dir: Path) -> dict[str, Any]:
    """Import ``micrograd`` and make sure it is the one under ``engine_dir``."""
    import micrograd

    where = Path(micrograd.__file__ or "").resolve()
    if engine_dir.resolve() not in where.parents:
        raise RuntimeError(f"imported micrograd from {where}, expected it under {engine_dir}")
    version = getattr(micrograd, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("micrograd")  # 0.1.0 has no __version__; its dist-info sits beside it
    return {"micrograd_version": version, "micrograd_path": str(where.parent)}


def _engine_only() -> None:
    """Import nothing from this working tree's editable install: with ``--engine-dir`` an older
    engine's missing module (say ``micrograd.scopes``) is then an ImportError, as it would be
    there, instead of the working tree's module loaded beside the old engine."""
    sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]


def _run(target: str, params: dict[str, Any], engine_dir: Path | None, collector: bool) -> dict[str, Any]:
    if engine_dir is not None:
        _engine_only()
    module_name, _, func_name = target.partition(":")
    func = getattr(importlib.import_module(module_name), func_name)
    info = _engine_info(engine_dir) if engine_dir is not None else {}
    if not collector:
        gc.disable()  # for the whole run, as `python -c "import gc; gc.disable(); ..."` would
    result: dict[str, Any] = func(**params)
    result.update(info)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("target", help="module:function, a module of this folder")
    parser.add_argument("--params", default="{}", help="keyword arguments, as a JSON object")
    parser.add_argument("--engine-dir", type=Path, help="the folder micrograd must be imported from")
    parser.add_argument("--gc-off", action="store_true", help="disable the cyclic garbage collector")
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON result")
    args = parser.parse_args(argv)
    params = json.loads(args.params)
    if not isinstance(params, dict):
        parser.error(f"--params must be a JSON object, got {args.params!r}")
    try:
        result = _run(args.target, params, args.engine_dir, collector=not args.gc_off)
        code = 0
    except Exception as exc:  # reported to the driver, which shows it in the table
        result = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        code = 1
    result["pid"] = os.getpid()
    args.out.write_text(json.dumps(result))
    return code


if __name__ == "__main__":
    sys.exit(main())
