from __future__ import annotations

import pytest

from tests.clients.stack import GatewayStack


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One real gateway stack per test module (Redis, rules service, gateway process)."""
    with GatewayStack(tmp_path_factory.mktemp("gateway")) as running:
        yield running
