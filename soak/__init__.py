"""Fault injection on real processes: the soak (`make soak`) and what the reliability tests share.

- `soak.processes`: redis-server, rules services and gateway replicas that can be SIGKILLed and
  restarted on the same port (Redis on the same data directory);
- `soak.stack`: all of them together, configured like a deployment (keys, tenants, RULES_*);
- `soak.harness`: the soak itself.
"""
