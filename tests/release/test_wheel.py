"""The built wheel is the product: installed into a clean virtualenv, away from the
checkout, it migrates a database and serves pages with their templates, static files
and every language's catalogue."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Run in the installed portal, from a directory that is not the checkout.
SERVE = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import portal
    from portal.app import create_app

    assert Path(portal.__file__).is_relative_to(Path(sys.prefix)), portal.__file__
    client = create_app().test_client()
    page = client.get("/login")
    assert page.status_code == 200, page.status_code
    assert "Sign in" in page.get_data(as_text=True)
    chinese = client.get("/login", headers={"Accept-Language": "zh"})
    assert "登录" in chinese.get_data(as_text=True)
    malay = client.get("/login", headers={"Accept-Language": "ms"})
    assert "Log masuk" in malay.get_data(as_text=True)
    script = client.get("/static/vendor/htmx-2.0.11/htmx.min.js")
    assert script.status_code == 200 and len(script.data) > 10_000
    print("served", portal.__file__)
    """
)


def _run(*command: str | Path, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(  # noqa: S603 - our own interpreter and tools
        [str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from this checkout offline, with the test environment's setuptools."""
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
        "--quiet", "--wheel-dir", out, ROOT, cwd=out, env=env,
    )  # fmt: skip
    (built,) = out.glob("countersign-*.whl")
    return built


def test_the_wheel_holds_what_the_portal_reads_at_run_time(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "portal/templates/layout/base.html",
        "portal/templates/emails/_layout.html",
        "portal/static/css/portal.css",
        "portal/static/js/flow-editor/main.js",
        "portal/migrations/alembic.ini",
        "portal/migrations/env.py",
        "portal/migrations/script.py.mako",
        "portal/domain/graph.schema.json",
    ):
        assert needed in names, needed
    assert any(n.startswith("portal/migrations/versions/") and n.endswith(".py") for n in names)
    for locale in ("en", "zh", "ms"):  # compiled as the wheel was built
        assert f"portal/translations/{locale}/LC_MESSAGES/messages.mo" in names
    assert not [n for n in names if n.endswith((".po", ".pot", ".pyc"))]


def test_installed_from_the_wheel_it_migrates_and_serves_pages(wheel, tmp_path):
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path, env=dict(os.environ))
    python = venv / "bin" / "python"
    # The dependencies come from this environment (no network in the test): its
    # site-packages joins the new one's path after it, without its .pth files — so
    # the checkout's editable install stays out of sight.
    site = Path(
        subprocess.check_output(  # noqa: S603
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
        ).strip()
    )
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PORTAL_", "PYTHONPATH"))}
    env["PORTAL_INSTANCE_DIR"] = str(tmp_path / "instance")
    _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
        "--quiet", wheel, cwd=tmp_path, env=env,
    )  # fmt: skip
    portal = venv / "bin" / "portal"
    assert _run(portal, "--version", cwd=tmp_path, env=env).strip() == "Countersign 0.1.0"
    assert "at head" in _run(portal, "db", "upgrade", cwd=tmp_path, env=env)
    assert (tmp_path / "instance" / "portal.sqlite3").exists()
    assert "served" in _run(python, "-c", SERVE, cwd=tmp_path, env=env)
