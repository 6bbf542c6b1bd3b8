"""The set-up scripts: install_torch.py only ever accepts a CPU build of PyTorch (its decisions; nothing
installed), and setup.sh refuses what it does not know."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("install_torch", ROOT / "scripts" / "install_torch.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["install_torch"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


it = load_script()


def report(*packages: tuple[str, str, list[str]]) -> dict[str, Any]:
    """A `pip install --report` document listing (name, version, requires_dist) packages."""
    return {
        "install": [
            {"metadata": {"name": n, "version": v, "requires_dist": r}, "download_info": {"url": "file:///x"}}
            for n, v, r in packages
        ]
    }


CPU_TORCH = ("torch", "2.13.0+cpu", ["filelock", "sympy>=1.13.3", 'optree>=0.13.0; extra == "optree"'])


def test_cpu_build_accepted() -> None:
    assert it.gpu_problem(report(CPU_TORCH, ("sympy", "1.14.0", []))) is None


def test_plain_cpu_only_wheel_accepted() -> None:  # e.g. macOS: no local label, no GPU libraries
    assert it.gpu_problem(report(("torch", "2.13.0", ["filelock"]))) is None


@pytest.mark.parametrize(
    ("packages", "reason"),
    [
        ((CPU_TORCH, ("nvidia-cublas-cu12", "12.8", [])), "nvidia-cublas-cu12"),
        ((CPU_TORCH, ("triton", "3.5.0", [])), "triton"),
        ((("torch", "2.13.0", ['nvidia-cudnn-cu12==9.1; platform_system == "Linux"']),), "GPU libraries"),
        ((("torch", "2.13.0+cu128", []),), "GPU build"),
        ((("torch", "2.13.0+rocm6.4", []),), "GPU build"),
        ((("sympy", "1.14.0", []),), "not in the resolution"),
    ],
)
def test_gpu_resolutions_refused(packages: tuple[tuple[str, str, list[str]], ...], reason: str) -> None:
    problem = it.gpu_problem(report(*packages))
    assert problem is not None and reason in problem


def test_empty_report_refused() -> None:
    assert "nothing to install" in it.gpu_problem({})


def test_candidates_on_linux_pin_the_cpu_build_first() -> None:
    found = it.candidates("2.13.0", platform="linux")
    assert [c.requirement for c in found] == ["torch==2.13.0+cpu", "torch==2.13.0+cpu", "torch==2.13.0"]
    assert found[0].pip_options == ()
    assert it.CPU_INDEX in found[1].pip_options


def test_candidates_elsewhere_use_the_plain_release() -> None:
    for platform in ("darwin", "win32"):
        assert [c.requirement for c in it.candidates("2.13.0", platform=platform)] == ["torch==2.13.0"]


@pytest.mark.parametrize("version", ["", "2.13.0+cu128", "==2.13.0"])
def test_bad_version_is_a_usage_error(version: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        it.main(["--version", version])
    assert exc.value.code == 2
    assert "plain release" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ([], {}, "usage: scripts/setup.sh demo|test (got '')"),
        (["tests"], {}, "usage: scripts/setup.sh demo|test (got 'tests')"),
        (["test"], {"SKIP_TORCH": "yes"}, "SKIP_TORCH must be 0 or 1 (got 'yes')"),
    ],
)
def test_setup_sh_refuses_unknown_modes(args: list[str], env: dict[str, str], message: str) -> None:
    # Refused before anything is installed: VENV points nowhere real.
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "VENV": "/nonexistent/venv", **env},
        timeout=60,
    )
    assert proc.returncode == 2
    assert message in proc.stderr


def test_setup_sh_silences_only_setuptools_editable_installation_box(tmp_path: Path) -> None:
    # A stand-in for the venv's python: for the editable install it emits what setuptools' backend
    # emits (the "Editable installation." box) and a warning that must still show; `dot` is present.
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    emit = (
        "import warnings; "
        "warnings.warn('Editable installation.\\n!!\\n  be careful with folders\\n!!', UserWarning); "
        "warnings.warn('a real problem with the install', UserWarning)"
    )
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\ncase " $* " in *" -e "*) exec {sys.executable} -c "{emit}" ;; esac\n')
    (bin_dir / "dot").write_text("#!/bin/sh\n")
    for script in (python, bin_dir / "dot"):
        script.chmod(0o755)
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh"), "demo"],
        capture_output=True,
        text=True,
        env={**os.environ, "VENV": str(tmp_path / "venv"), "PATH": f"{bin_dir}:{os.environ['PATH']}"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "a real problem with the install" in proc.stderr
    assert "Editable installation" not in proc.stderr and "be careful" not in proc.stderr
