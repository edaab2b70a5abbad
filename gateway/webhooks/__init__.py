"""Signed webhooks per tenant (issue 23): config, the durable outbox, derivation, delivery.

- `config.py`   the tenants file's `webhooks` entry
- `signing.py`  the JSON body's envelope and the HMAC-SHA256 signature header
- `outbox.py`   the Redis outbox: intents, deliveries, dead letters (keys and scripts)
- `derive.py`   a match's stream -> webhook events (and the ratings of an ended match)
- `dispatch.py` the store hook on the append path, and the loop that sends deliveries

docs/gateway.md, "Webhooks", has the schema, the signature and why nothing is lost.
"""
