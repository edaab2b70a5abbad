"""Build hook: the gRPC modules the client imports (`guildhall.common.v1`, `guildhall.gateway.v1`,
`guildhall.admin.v1`) are generated from the protos into the wheel.

The protos are the source, the generated code a build product (as for the server's wheel,
../../setup.py): `pip wheel`, `python -m build` run protoc here (grpcio-tools is a build
requirement). The protos are read from the repository (../../protos) and copied into the sdist,
so a wheel built from the sdist has them too. Editable installs for development use the
repository's gen/ instead (`make gen` puts it on the virtualenv's path).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
# The packages of the protos the client speaks: the gateway's API, the admin API (`guildhall
# admin`) and the shared messages they import. The rules contract is the server's alone.
PACKAGES = ("guildhall/common/v1", "guildhall/gateway/v1", "guildhall/admin/v1")


def protos_root() -> Path:
    """protos/ of the sdist, else of the repository this folder sits in."""
    for root in (HERE / "protos", HERE.parent.parent / "protos"):
        if (root / PACKAGES[0]).is_dir():
            return root
    raise SystemExit("no protos/ beside setup.py or in the repository: build from either")


class BuildWithProtos(build_py):  # type: ignore[misc]
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        from grpc_tools import protoc

        root = protos_root()
        protos = sorted(str(p.relative_to(root)) for pkg in PACKAGES for p in (root / pkg).glob("*.proto"))
        out = Path(self.build_lib)
        include = str(Path(protoc.__file__).parent / "_proto")
        args = ["protoc", f"-I{root}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}"]
        if protoc.main([*args, f"--grpc_python_out={out}", *protos]) != 0:
            raise SystemExit("protoc failed to generate the gRPC modules")


def generated_requirements() -> list[str]:
    """grpcio and protobuf as the generator needs them: the modules grpcio-tools writes check at
    import that the runtime is at least the generator's (GRPC_GENERATED_VERSION, the protobuf
    gencode version), and grpcio-tools requires exactly those of itself."""
    from importlib.metadata import requires

    wanted = [r for r in requires("grpcio-tools") or [] if re.match(r"(grpcio|protobuf)\b", r)]
    if sorted(re.match(r"[\w-]+", r).group() for r in wanted) != ["grpcio", "protobuf"]:  # type: ignore[union-attr]
        raise SystemExit(f"grpcio-tools names no grpcio and protobuf floors: {wanted}")
    return wanted


class SdistWithProtos(sdist):  # type: ignore[misc]
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        root = protos_root()
        for package in PACKAGES:
            shutil.copytree(root / package, Path(base_dir) / "protos" / package, dirs_exist_ok=True)


setup(
    cmdclass={"build_py": BuildWithProtos, "sdist": SdistWithProtos},
    install_requires=[
        *generated_requirements(),
        # The bot worker's health port (guildhall_client/botworker.py).
        "grpcio-health-checking>=1.60",
        # Receipts: Ed25519 signatures checked against the gateway's published keys.
        "cryptography>=42",
        # The `guildhall` command line.
        "typer>=0.12",
        "rich>=13",
    ],
)
