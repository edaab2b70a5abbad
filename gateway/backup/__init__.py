"""Backups of a deployment's state (issue 43 item 3): Redis's snapshot, taken with SYNC from every
primary, and the archive's blobs; verified on their own; restored into a fresh Redis (of any
shape) and archive with RESTORE, then verified there.

    rdb.py       an RDB over SYNC, read key by key, each key as RESTORE's payload
    tool.py      create / verify / restore, the backup directory and its manifest
    __main__.py  `python -m gateway.backup create|verify|restore` (`make backup`, `make restore`)
"""
