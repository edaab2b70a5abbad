"""`python -m gateway`: serve guildhall.gateway.v1.GatewayService (flags and env: --help)."""

# ruff: noqa: E402 (gRPC's I/O is chosen before anything below imports grpc)
from __future__ import annotations

from services import runtime

runtime.choose_grpc_io()  # first: gRPC reads GRPC_EXPERIMENTS once, when it is imported

import os
import sys

from gateway.auth import TenantsError
from gateway.bootstrap import serve
from gateway.settings import parse_args
from gateway.signing import KeyRingError
from services import tracing
from services.observability import configure_logging
from services.runtime import RuntimeSettingError
from services.server import EXIT_WITH_PARENT_ENV


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    try:
        tracing.configure("gateway")  # before logging: log lines then carry trace ids
        configure_logging("gateway", config.log_level)
    except ValueError as exc:  # a bad LOG_LEVEL or OTEL_* setting
        print(f"python -m gateway: {exc}", file=sys.stderr)
        return 2
    supervisor = os.environ.get(EXIT_WITH_PARENT_ENV)
    try:
        runtime.run(serve(config, supervisor_pid=int(supervisor) if supervisor else None))
    # A configuration fault: say which, no traceback.
    except (TenantsError, KeyRingError, RuntimeSettingError) as exc:
        print(f"python -m gateway: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
