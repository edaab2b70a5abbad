"""Local processes for development, tests, the demo, the benchmarks and the soak; not shipped.

Everything here starts processes; the product (gateway/, services/) starts none and never
imports this package (tests/test_architecture.py checks both), and the wheel leaves it out.

- `devstack.processes`: one child process, started, stopped, killed and restarted the same way
  whatever it is: `RedisProcess` (a redis-server on a port and data directory, AOF always by
  default), `RulesProcess` (`python -m services.<game>`), `GatewayProcess` (`python -m gateway`);
  and `free_port`, `wait_serving`, `find_redis_server`.
- `devstack.redis`: `local_redis()`, the Redis a test or `make run` uses (REDIS_URL, a container,
  or a redis-server of its own); `redis_server_process()`; `python -m devstack.redis`.
- `devstack.cluster`: `redis_cluster()`, a real Redis Cluster on loopback;
  `python -m devstack.cluster`.
- `devstack.stack`: `Stack`, Redis + rules services + gateway replicas together
  (`Stack.for_faults`: the soak's configuration); `python -m devstack.stack` is `make run`.
- `devstack.demo`: `make demo`.
"""
