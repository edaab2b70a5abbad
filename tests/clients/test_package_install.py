"""The Python client as an integrator gets it (issue 42): the guildhall-client distribution built
from a clean folder (`python -m build`: the sdist, then the wheel from the sdist), installed into
a new virtualenv with nothing of the server, type-checked under `mypy --strict` and played against
a real stack. Built and installed once per run (a module fixture): the other tests share it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"
DOCS = ROOT / "docs" / "clients.md"

# What the client imports, named in setup.py and listed in docs/clients.md ("Install").
CLIENT_REQUIREMENTS = {"grpcio", "protobuf", "grpcio-health-checking", "cryptography", "typer", "rich"}

# A program an integrator writes against the installed client alone: the blocking client and a
# bot for each seat, one thread per seat; typed throughout, so `mypy --strict` checks it.
PROGRAM = '''\
"""Two bots play Rattus Cartus at a private table through the blocking client."""

import sys
from concurrent.futures import ThreadPoolExecutor

from guildhall_client import Client, MatchView
from guildhall_client.bots import make_bot
from guildhall_client.sync import BlockingSeat


def play(seat: BlockingSeat) -> MatchView:
    bot = make_bot("random", "rattus_cartus", seed=seat.number)

    def choose(view: MatchView) -> int:
        assert view.seat is not None
        return bot.choose(view.view, view.legal_actions, view.seat)

    return seat.play(choose)


def main(target: str, api_key: str) -> None:
    with Client(target, api_key=api_key) as gh:
        table = gh.create_table("rattus_cartus", 2)
        seats = [gh.claim_seat(table.invite_code, player) for player in ("alice", "bob")]
        with ThreadPoolExecutor(2) as pool:
            finals = list(pool.map(play, seats))
        check = gh.verify_match(finals[0].match_id)
        version: int = finals[0].version
        print(f"{finals[0].match_id} finished={finals[0].finished} version={version} seed_ok={check.seed_ok}")


main(sys.argv[1], sys.argv[2])
'''


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=540)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client's wheel, built from a clean copy of clients/python and the protos (an earlier
    build, egg-info or the dev venv's generated gen/ cannot leak into it)."""
    work = tmp_path_factory.mktemp("client-build")
    source = work / "repo"
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")
    shutil.copytree(CLIENT, source / "clients" / "python", ignore=junk)
    shutil.copytree(ROOT / "protos", source / "protos", ignore=junk)
    # No build isolation: the dev environment has the build requirements (setuptools,
    # grpcio-tools), so building needs no network.
    done = _run(
        sys.executable,
        "-m",
        "build",
        "--no-isolation",
        "--outdir",
        work / "dist",
        source / "clients" / "python",
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = (work / "dist").glob("guildhall_client-*.whl")
    return wheel


@pytest.fixture(scope="module")
def venv(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtualenv with the wheel installed (the versions the suite runs with: constraints.txt)."""
    home = tmp_path_factory.mktemp("client-venv") / "venv"
    assert _run(sys.executable, "-m", "venv", home).returncode == 0
    done = _run(home / "bin" / "python", "-m", "pip", "install", "-q", built, "-c", ROOT / "constraints.txt")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return home


def _installed(venv: Path) -> set[str]:
    listed = _run(venv / "bin" / "python", "-m", "pip", "list", "--format", "json")
    return {re.sub(r"[-_.]+", "-", p["name"]).lower() for p in json.loads(listed.stdout)}


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", r).group().lower() for r in requirements}  # type: ignore[union-attr]


def test_the_wheel_holds_the_client_its_generated_modules_and_the_marker_and_nothing_of_the_server(
    built: Path,
) -> None:
    names = zipfile.ZipFile(built).namelist()
    assert "guildhall_client/py.typed" in names
    assert (
        "guildhall/gateway/v1/gateway_pb2_grpc.py" in names
        and "guildhall/gateway/v1/gateway_pb2.pyi" in names
    )
    assert "guildhall/admin/v1/admin_pb2.py" in names and "guildhall/common/v1/common_pb2.py" in names
    assert not [n for n in names if n.split("/")[0] in {"services", "gateway", "devstack", "tests"}]
    # The rules contract is the server's: the client never speaks it.
    assert not [n for n in names if n.startswith("guildhall/rules/")]


def test_installing_the_wheel_pulls_only_the_clients_dependencies(built: Path, venv: Path) -> None:
    metadata = zipfile.ZipFile(built).read(
        next(n for n in zipfile.ZipFile(built).namelist() if n.endswith(".dist-info/METADATA"))
    )
    requires = re.findall(r"^Requires-Dist: (.+)$", metadata.decode(), flags=re.M)
    assert _requirement_names([r for r in requires if "extra ==" not in r]) == CLIENT_REQUIREMENTS
    # Ranges, not pins: an application installs the client beside its own dependencies.
    assert not [r for r in requires if "==" in r.split(";")[0]], requires
    assert [r for r in requires if "extra ==" in r] == ['guildhall-server>=0.1; extra == "rules"']

    installed = _installed(venv)
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    server_only = _requirement_names(server) - CLIENT_REQUIREMENTS - {"grpcio-reflection"}
    assert CLIENT_REQUIREMENTS | {"guildhall-client"} <= installed
    assert not installed & (server_only | {"guildhall-server", "grpcio-reflection", "grpcio-tools"}), (
        installed
    )
    # The docs list the dependencies an integrator gets (docs/clients.md, "Install").
    install_section = DOCS.read_text().split("### Install", 1)[1].split("\n### ", 1)[0]
    assert all(f"`{name}`" in install_section for name in CLIENT_REQUIREMENTS), install_section

    # The figure docs/clients.md gives: what the install adds to a new virtualenv (pip's own files aside).
    python = venv / "bin" / "python"
    site = Path(
        _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    )
    bare = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth")
    size = sum(
        f.stat().st_size for top in site.iterdir() if not top.name.startswith(bare) for f in _files(top)
    )
    print(f"\nguildhall-client installed: {len(installed)} distributions, {size / 1e6:.0f} MB")


def _files(path: Path) -> list[Path]:
    return [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]


def test_a_program_using_the_installed_client_passes_mypy_strict_and_a_typed_mistake_fails(
    venv: Path, tmp_path: Path
) -> None:
    (tmp_path / "mypy.ini").write_text("[mypy]\n")  # none of the repository's settings
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    mypy = (
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        tmp_path / "mypy.ini",
        "--strict",
        "--no-incremental",
    )
    checked = _run(*mypy, "--python-executable", venv / "bin" / "python", program, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # The blocking client's results are typed: a wrong annotation is caught, not read as Any.
    wrong = tmp_path / "wrong.py"
    wrong.write_text(PROGRAM.replace("version: int = ", "version: str = "))
    caught = _run(*mypy, "--python-executable", venv / "bin" / "python", wrong, cwd=tmp_path)
    line = PROGRAM.splitlines().index(next(x for x in PROGRAM.splitlines() if "version: int" in x)) + 1
    assert caught.returncode == 1, caught.stdout
    assert f"wrong.py:{line}: error: Incompatible types in assignment" in caught.stdout, caught.stdout


def test_the_installed_client_plays_a_match_against_a_real_stack(venv: Path, tmp_path: Path, stack) -> None:
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    played = _run(venv / "bin" / "python", "-I", program, stack.target, stack.api_key, cwd=tmp_path)
    assert played.returncode == 0, played.stdout + played.stderr
    assert re.search(r"finished=True version=\d+ seed_ok=True", played.stdout), played.stdout


def test_the_installed_command_line_runs_and_names_the_extra_for_the_servers_code(venv: Path, stack) -> None:
    guildhall = venv / "bin" / "guildhall"
    keys = subprocess.run(
        [guildhall, "keys", "public", "--json"],
        env=stack.cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert keys.returncode == 0, keys.stdout + keys.stderr
    assert len(bytes.fromhex(json.loads(keys.stdout)["keys"][0]["ed25519"])) == 32
    # Re-executing a match runs the server's rules: without them, one line says what to install.
    verify = subprocess.run(
        [guildhall, "verify", "nothing.ghx"], env=stack.cli_env(), capture_output=True, text=True, timeout=60
    )
    assert verify.returncode == 2 and "pip install 'guildhall-client[rules]'" in verify.stderr, verify.stderr
    # So does the strong bot, which searches with the game's rules in process.
    strong = subprocess.run(
        [guildhall, "bots", "--game", "rattus_cartus", "--kind", "strong", "--matches", "1"],
        env=stack.cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert strong.returncode == 2 and "pip install 'guildhall-client[rules]'" in strong.stderr, strong.stderr


def test_both_client_packages_carry_the_apis_major_version_a_changelog_entry_and_ranges() -> None:
    """docs/clients.md, "Versioning": the major version is the API's, each release has its
    changelog entry, dependencies are ranges."""
    api_majors = {int(p.name[1:]) for p in (ROOT / "protos" / "guildhall" / "gateway").glob("v*")}
    python = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]
    web_dir = ROOT / "clients" / "web"
    web = json.loads((web_dir / "package.json").read_text())
    for version, changelog in ((python["version"], CLIENT), (web["version"], web_dir)):
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
        assert int(version.split(".")[0]) == max(api_majors), (version, api_majors)
        assert f"\n## {version}\n" in (changelog / "CHANGELOG.md").read_text(), changelog
    assert "CHANGELOG.md" in web["files"]
    assert all(re.match(r"[\^~]\d", spec) for spec in web["dependencies"].values()), web["dependencies"]
