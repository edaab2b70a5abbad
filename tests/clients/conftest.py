from __future__ import annotations

import pytest

from tests.clients.stack import GatewayStack


@pytest.fixture(scope="session")
def stack(tmp_path_factory):
    """One real gateway stack (Redis, rules service, gateway process), started by the first test
    that needs it and shared by every client test module of this process (each xdist worker has
    its own). A test that restarts the gateway leaves it running again."""
    with GatewayStack(tmp_path_factory.mktemp("gateway")) as running:
        yield running
