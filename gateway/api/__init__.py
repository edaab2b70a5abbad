"""The gateway's transports: everything that speaks to clients on the wire, and nothing else.

The gRPC servicer (server.py) and its handler tables (integrations.py, audit_wire.py), the admin
API's servicer (admin.py), the Play stream (play_stream.py), Connect/HTTP for browsers and curl
(connect.py, with its JSON fields, jsonfields.py, bounded inflation, inflate.py, and the
Server-Sent Events feeds, sse.py), request checks (wire.py), status mapping (faults.py), the
undecodable-request interceptor (undecodable.py), the stream caps (streams.py) and the seat names
a view carries (seatnames.py). Use cases, the domain, the stores and background loops live
outside this folder and never import it; bootstrap.py wires the two.
"""
