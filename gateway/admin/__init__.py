"""The operator plane (issue 34): tenants, API keys and settings at runtime, usage per tenant,
offboarding, and the hash-chained admin log, behind guildhall.admin.v1.AdminService.

One obvious place for each thing:

    registry.py   tenants in Redis, seeded from TENANTS_FILE; every replica's in-memory copy,
                  refreshed on change (pub/sub + a version poll); the streams a suspension ends
    log.py        the admin log: a hash-chained stream appended by the event store's own script
    usage.py      usage counters: in memory on the hot path, flushed as one pipelined batch
    offboard.py   delete-tenant: archive, verify, then SCAN and remove every key of the tenant
    usecases.py   the admin operations: validate, change, record (before/after, secrets redacted)
    service.py    the thin gRPC/Connect servicer over the use cases

Redis keys (all in the `{admin}` slot except usage, which lives in the tenant's own tag):

    gh:{admin}:tenants       hash: tenant id -> its record (JSON: the tenants-file body, suspended,
                             created/updated times, each key's creation time)
    gh:{admin}:version       counter, +1 on every change (replicas poll it)
    gh:{admin}:deleted       set of tenant ids deleted through the API (the file never re-seeds them)
    gh:{admin}:log[:meta|:snapshot|:commands]   the admin log (gateway.eventstore layout)
    gh:usage:{<tenant>}:h:<YYYYMMDDHH> / :d:<YYYYMMDD>   hash: counter -> value
    channel gh:admin:changed  "<version>" after every change
"""
