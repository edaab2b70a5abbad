"""Fault injection on real processes: the soak (`make soak`).

- `soak.harness`: the soak itself: bot matches through the replicas while Redis, replicas and
  rules services are killed and restarted at random, then every match audited and every
  acknowledged event checked against the store;
- `soak.flood`: one tenant flooding while another's latency is measured.

The processes (killable, restartable in place) and the stack they form, configured like a
deployment, are devstack's: `devstack.stack.Stack.for_faults`, shared with the reliability tests.
"""
