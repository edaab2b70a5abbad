"""Build hook: the generated gRPC modules (`guildhall.*`) are built into the wheel.

The protos are the source; the generated code is a build product, so `pip install .` runs
protoc here (grpcio-tools is a build requirement in pyproject.toml) and the installed
package imports `guildhall.rules.v1` with nothing else on the path. Editable installs for
development use gen/ instead (the Makefile generates it and puts it on the venv's path).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# The protos whose services the gateway serves over Connect (the Makefile's `gen` names the same).
CONNECT_PROTOS = ("guildhall/gateway/v1/gateway.proto", "guildhall/admin/v1/admin.proto")


class BuildWithProtos(build_py):  # type: ignore[misc]
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        from grpc_tools import protoc

        protos = sorted(str(p.relative_to(ROOT / "protos")) for p in (ROOT / "protos").rglob("*.proto"))
        out = Path(self.build_lib)
        out.mkdir(parents=True, exist_ok=True)
        include = str(Path(protoc.__file__).parent / "_proto")
        args = ["protoc", f"-I{ROOT / 'protos'}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}"]
        if protoc.main([*args, f"--grpc_python_out={out}", *protos]) != 0:
            raise SystemExit("protoc failed to generate the gRPC modules")
        # The descriptors with their comments, for the OpenAPI document (gateway/api/openapi.py).
        descriptors = f"--descriptor_set_out={out}/guildhall/descriptors.binpb"
        if protoc.main([*args[:3], "--include_imports", "--include_source_info", descriptors, *protos]) != 0:
            raise SystemExit("protoc failed to write the descriptor set")
        # The Connect (HTTP) modules of the services the gateway serves (gateway/api/connect.py);
        # protoc-gen-connect-python is a build requirement.
        plugin = shutil.which("protoc-gen-connect-python") or str(
            Path(sys.executable).parent / "protoc-gen-connect-python"
        )
        connect = [f"-I{ROOT / 'protos'}", f"-I{include}", f"--plugin=protoc-gen-connect-python={plugin}"]
        if protoc.main(["protoc", *connect, f"--connect-python_out={out}", *CONNECT_PROTOS]) != 0:
            raise SystemExit("protoc failed to generate the Connect modules (protoc-gen-connect-python)")


setup(cmdclass={"build_py": BuildWithProtos})
