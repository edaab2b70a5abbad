"""The operator plane (issue 34): tenants, API keys and settings at runtime, usage per tenant,
offboarding, and the hash-chained admin log, behind guildhall.admin.v1.AdminService.

One obvious place for each thing:

    registry.py   tenants in Redis, seeded from TENANTS_FILE; every replica's in-memory copy of
                  the records the log explains, refreshed on change (pub/sub + a poll of the
                  log's head); the streams a suspension or a revocation ends
    log.py        the admin log: a hash-chained, signed stream appended by the event store's own
                  script, which writes the tenant records with their entries; checkpoints
    usage.py      usage counters: in memory on the hot path, flushed as one pipelined batch
    offboard.py   delete-tenant: a job (archive, verify, then SCAN and remove every key of the
                  tenant) any replica takes over
    usecases.py   the admin operations: validate, change, record (before/after, secrets redacted)
    gateway/api/admin.py  the thin gRPC/Connect servicer over the use cases

Redis keys (all in the `{admin}` slot except usage, which lives in the tenant's own tag):

    gh:{admin}:tenants       hash: tenant id -> its record (JSON: the tenants-file body, suspended,
                             generation, created/updated times, each key's creation time), or
                             the tombstone of a deleted tenant ({"deleted": true, ...})
    gh:{admin}:deleted       set of tenant ids deleted before tombstones (never re-seeded)
    gh:{admin}:log[:meta|:commands]   the admin log (gateway.eventstore layout)
    gh:{admin}:offboarding   set of tenants whose offboarding job is under way
    gh:{admin}:offboarding:<tenant>   hash: that job's state, progress and lease
    gh:usage:{<tenant>}:h:<YYYYMMDDHH> / :d:<YYYYMMDD>   hash: counter -> value
    channel gh:admin:changed  "<log version>" after every entry
"""
