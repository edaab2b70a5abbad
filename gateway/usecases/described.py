"""Descriptions of the gateway's own events as the wire carries them (issue 31).

The gateway's events are public and shown as stored, so each one's description is the same for
every viewer: made once per payload and kept serialized, as the rules service's arrive."""

from __future__ import annotations

from functools import lru_cache

from guildhall.common.v1 import common_pb2

from gateway.domain.describe import describe_gateway_event
from services.kernel.present import Description


def description_message(description: Description) -> common_pb2.Description:
    return common_pb2.Description(
        key=description.key,
        text=description.text,
        template=description.template,
        args=[
            common_pb2.DescriptionArg(name=a.name, text=a.text, kind=a.kind, id=a.id)
            for a in description.args
        ],
        internal=description.internal,
    )


@lru_cache(maxsize=1024)
def gateway_description(payload: bytes) -> bytes:
    """A gateway event's description, serialized (empty when the payload is not one it reads)."""
    description = describe_gateway_event(payload)
    return b"" if description is None else description_message(description).SerializeToString()
