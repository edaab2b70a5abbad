"""Build the Guildhall image (deploy/Dockerfile) with docker or podman, whichever is present:
`make image` (`python -m devstack.image build`).

Where no registry can be reached (these development machines), the base image is built from
Debian's packages instead of pulled: a debootstrap of bookworm with python3 and its venv module,
imported as `localhost/guildhall-base:bookworm` and passed to the Dockerfile as BASE_IMAGE. The
Dockerfile's default stays `python:3.11-slim`, what users elsewhere pull.

Podman here needs two settings the defaults lack: the `runc` runtime (`crun` refuses this host's
cgroup layout) and a containers.conf with `default_ulimits = []` (the default ulimits are
refused); `engine_command` adds both. Builds run on the host network with the host's pip
configuration and CA bundle mounted, so pip reaches the package index as it does on the host.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VAR = ROOT / "var" / "image"
IMAGE = "localhost/guildhall:dev"
DEBIAN_BASE = "localhost/guildhall-base:bookworm"
# Redis for `make image-test`: Debian's redis-server on the same Debian base.
REDIS_IMAGE = "localhost/guildhall-redis:bookworm"
PULLED_BASE = "python:3.11-slim"
DEBIAN_MIRROR = "http://deb.debian.org/debian"
_BASE_PACKAGES = "python3,python3-venv,ca-certificates"
# Host files that let pip (and apt) inside a build reach what the host reaches.
_HOST_MOUNTS = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pip.conf")


class ImageError(RuntimeError):
    """The image could not be built or run; the message says what to install or fix."""


def engine() -> str:
    """docker when its daemon answers, else podman; ImageError when neither is there."""
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "info"], capture_output=True).returncode == 0:
        return docker
    podman = shutil.which("podman")
    if podman:
        return podman
    raise ImageError("neither docker nor podman is installed (apt-get install podman runc)")


def _containers_conf() -> Path:
    VAR.mkdir(parents=True, exist_ok=True)
    conf = VAR / "containers.conf"
    conf.write_text("[containers]\ndefault_ulimits = []\n")
    return conf


def engine_command(*args: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment to run `args` with this machine's engine."""
    tool = engine()
    env = dict(os.environ)
    if Path(tool).name == "podman":
        env["CONTAINERS_CONF"] = str(_containers_conf())
        runc = shutil.which("runc") or "/usr/sbin/runc"
        return [tool, "--runtime", runc, *args], env
    return [tool, *args], env


def run(*args: str, check: bool = True, capture: bool = False) -> subprocess.CompletedProcess[str]:
    command, env = engine_command(*args)
    result = subprocess.run(command, env=env, text=True, capture_output=capture)
    if check and result.returncode != 0:
        detail = (result.stderr or "").strip()[-2000:] if capture else ""
        raise ImageError(f"{' '.join(command[:4])} ... failed ({result.returncode}) {detail}")
    return result


def exists(image: str) -> bool:
    return run("image", "inspect", image, check=False, capture=True).returncode == 0


def _host_mounts() -> list[str]:
    return [arg for path in _HOST_MOUNTS if Path(path).exists() for arg in ("-v", f"{path}:{path}:ro")]


def debian_base() -> str:
    """The Debian base image, built once with debootstrap (root needed) and imported."""
    if exists(DEBIAN_BASE):
        return DEBIAN_BASE
    debootstrap = shutil.which("debootstrap") or "/usr/sbin/debootstrap"
    if not Path(debootstrap).exists():
        raise ImageError("debootstrap is not installed (apt-get install debootstrap)")
    with tempfile.TemporaryDirectory(dir=VAR if VAR.exists() else None) as scratch:
        rootfs = Path(scratch) / "rootfs"
        print(f"building {DEBIAN_BASE} with debootstrap (about a minute)", file=sys.stderr)
        subprocess.run(
            [
                debootstrap,
                "--variant=minbase",
                f"--include={_BASE_PACKAGES}",
                "bookworm",
                str(rootfs),
                DEBIAN_MIRROR,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        command, env = engine_command("import", "-", DEBIAN_BASE)
        subprocess.run(command, env=env, stdin=tar.stdout, check=True, stdout=subprocess.DEVNULL)
        tar.wait()
    return DEBIAN_BASE


def base_image(requested: str = "") -> str:
    """The base to build on: the one asked for; else python:3.11-slim when it is present or can
    be pulled; else the Debian base built here."""
    if requested:
        return requested
    if exists(PULLED_BASE) or run("pull", "-q", PULLED_BASE, check=False, capture=True).returncode == 0:
        return PULLED_BASE
    print(f"{PULLED_BASE} cannot be pulled here: using {DEBIAN_BASE}", file=sys.stderr)
    return debian_base()


def build(tag: str = IMAGE, base: str = "") -> str:
    """Build deploy/Dockerfile as `tag`; returns the tag."""
    chosen = base_image(base)
    run(
        "build",
        "--network",
        "host",
        *_host_mounts(),
        "--build-arg",
        f"BASE_IMAGE={chosen}",
        "-f",
        str(ROOT / "deploy" / "Dockerfile"),
        "-t",
        tag,
        str(ROOT),
    )
    return tag


def redis_image() -> str:
    """A Redis image for the image test: Debian's redis-server on the Debian base."""
    if exists(REDIS_IMAGE):
        return REDIS_IMAGE
    base = debian_base()
    with tempfile.TemporaryDirectory() as context:
        (Path(context) / "Containerfile").write_text(
            f"FROM {base}\n"
            "RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
            "--no-install-recommends redis-server && rm -rf /var/lib/apt/lists/*\n"
            "USER 65532:65532\n"
            'ENTRYPOINT ["redis-server"]\n'
        )
        run("build", "--network", "host", *_host_mounts(), "-t", REDIS_IMAGE, context)
    return REDIS_IMAGE


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m devstack.image", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build", "base"], help="build the image, or only the Debian base")
    parser.add_argument("--tag", default=IMAGE)
    parser.add_argument(
        "--base", default=os.environ.get("BASE_IMAGE", ""), help="base image (env BASE_IMAGE)"
    )
    args = parser.parse_args(argv)
    try:
        if args.command == "base":
            print(debian_base())
        else:
            print(build(args.tag, args.base))
    except (ImageError, subprocess.CalledProcessError) as error:
        sys.exit(f"image: {error}")


if __name__ == "__main__":
    main()
