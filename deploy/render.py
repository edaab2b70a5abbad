"""Write the per-game Kubernetes manifests from the registry: `make manifests`.

Every rules service is deployed the same way; only its name and module differ, so the
manifests are rendered from one template here rather than copied per game. A test fails
when the committed files differ from what this renders, and when a registered game has none.
"""

from __future__ import annotations

import sys
from pathlib import Path

from services.registry import GAMES

BASE = Path(__file__).resolve().parent / "k8s" / "base"
# Prometheus alert rules and the Grafana dashboard: a component an operator adds next to an
# overlay where the Prometheus Operator runs; alerts.yaml is the plain rules file.
MONITORING = BASE.parent / "monitoring"
GRPC_PORT = 50051
# A rules service's Prometheus metrics (services/metrics.py), scraped by the ServiceMonitor
# guildhall-rules (deploy/k8s/monitoring/servicemonitor.yaml).
METRICS_PORT = 9100
# Stopping: readiness fails at once, the pod keeps serving for DRAIN_SECONDS (longer than the
# readiness period, so endpoints drop it first), then calls in flight get GRACE_SECONDS.
DRAIN_SECONDS = 6
GRACE_SECONDS = 10
TERMINATION_GRACE = DRAIN_SECONDS + GRACE_SECONDS + 4

RULES_TEMPLATE = """\
# Rendered by deploy/render.py from the registry (`make manifests`); do not edit by hand.
# The {title} rules service holds no state: scale it by replicas. The Service is headless so
# the gateway's gRPC client sees every pod address ({target}) and balances
# calls round robin per request; servers close connections after a max age (see
# services/server.py) so new pods get traffic too.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/component: rules}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {name}
        app.kubernetes.io/component: rules
        guildhall.io/game: {game}  # the scrape target's `game` (up{{job="guildhall-rules"}})
    spec:
{spread}
      terminationGracePeriodSeconds: {termination}
      automountServiceAccountToken: false
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        runAsGroup: 65532
        seccompProfile: {{type: RuntimeDefault}}
      containers:
        - name: rules
          image: guildhall
          args: ["services.{game}"]
          env:
            - {{name: PORT, value: "{port}"}}
            - {{name: HOST, value: "0.0.0.0"}}
            - {{name: LOG_LEVEL, value: info}}
            - {{name: DRAIN_SECONDS, value: "{drain}"}}
            - {{name: GRACE_SECONDS, value: "{grace}"}}
            - {{name: METRICS_PORT, value: "{metrics_port}"}}
          ports:
            - {{name: grpc, containerPort: {port}}}
            - {{name: metrics, containerPort: {metrics_port}}}
          readinessProbe:
            grpc: {{port: {port}}}
            periodSeconds: 3
          livenessProbe:
            grpc: {{port: {port}}}
            periodSeconds: 10
            failureThreshold: 3
          resources:
            # CPU-bound Python: one core per pod at most; scale out with replicas.
            requests: {{cpu: 250m, memory: 128Mi}}
            limits: {{cpu: "1", memory: 512Mi}}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: {{drop: [ALL]}}
---
apiVersion: v1
kind: Service
metadata:
  name: {name}
  labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/component: rules}}
spec:
  clusterIP: None
  selector: {{app.kubernetes.io/name: {name}}}
  ports:
    - {{name: grpc, port: {port}, targetPort: grpc, appProtocol: grpc}}
    - {{name: metrics, port: {metrics_port}, targetPort: metrics}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {name}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}
  minReplicas: 2
  maxReplicas: 20
  metrics:
    - type: Resource
      resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}
    - type: Resource
      resource: {{name: memory, target: {{type: Utilization, averageUtilization: 80}}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {name}
spec:
  minAvailable: 1
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
"""


def spread(name: str, indent: int = 6) -> str:
    """A pod spec's topologySpreadConstraints for the Deployment `name` (its pods' name label)."""
    lines = [
        "# Replicas spread over nodes (hard: a lost node takes at most its share) and zones (soft: a",
        "# one-zone cluster still schedules); tainted nodes the pods cannot use are not counted, and",
        "# each rollout's pods (pod-template-hash) spread on their own. Not pod anti-affinity: a",
        "# required one would cap the replicas (up to the HPA's 20) at the number of nodes.",
        "topologySpreadConstraints:",
    ]
    selector = f"labelSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}"
    for key, when in (
        ("kubernetes.io/hostname", "DoNotSchedule"),
        ("topology.kubernetes.io/zone", "ScheduleAnyway"),
    ):
        lines += [
            f"  - {{maxSkew: 1, topologyKey: {key}, whenUnsatisfiable: {when}, nodeTaintsPolicy: Honor,",
            f"     {selector}, matchLabelKeys: [pod-template-hash]}}",
        ]
    return "\n".join(" " * indent + line for line in lines)


def service_name(game_id: str) -> str:
    return f"rules-{game_id.replace('_', '-')}"


def rules_target(game_id: str) -> str:
    """The gateway's gRPC target for a game's rules service inside the cluster."""
    return f"dns:///{service_name(game_id)}:{GRPC_PORT}"


def rendered() -> dict[Path, str]:
    """Each generated manifest's path (relative to deploy/k8s/base) and its text."""
    files = {}
    for game_id, spec in GAMES.items():
        name = service_name(game_id)
        files[Path(f"{name}.yaml")] = RULES_TEMPLATE.format(
            name=name,
            game=game_id,
            title=spec.title,
            target=rules_target(game_id),
            port=GRPC_PORT,
            metrics_port=METRICS_PORT,
            spread=spread(name),
            drain=DRAIN_SECONDS,
            grace=GRACE_SECONDS,
            termination=TERMINATION_GRACE,
        )
    endpoints = "".join(f"RULES_{g.upper()}={rules_target(g)}\n" for g in GAMES)
    files[Path("rules-endpoints.env")] = (
        "# Rendered by deploy/render.py (`make manifests`): the gateway's rules endpoint per game.\n"
        + endpoints
    )
    return files


PROMETHEUS_RULE_HEADER = """\
# Rendered by deploy/render.py from alerts.yaml (`make manifests`); do not edit by hand.
# The same alert groups as the plain rules file, for the Prometheus Operator.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: guildhall-alerts
  labels: {app.kubernetes.io/name: guildhall, app.kubernetes.io/component: monitoring}
spec:
"""


def rendered_prometheus_rule() -> str:
    """alerts.yaml's groups as a PrometheusRule (its `groups:` block indented under spec)."""
    lines = (MONITORING / "alerts.yaml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("groups:"))
    return PROMETHEUS_RULE_HEADER + "".join(f"  {line}\n" if line else "\n" for line in lines[start:])


def main() -> None:
    for relative, text in rendered().items():
        (BASE / relative).write_text(text)
        print(f"wrote deploy/k8s/base/{relative}", file=sys.stderr)
    (MONITORING / "prometheusrule.yaml").write_text(rendered_prometheus_rule())
    print("wrote deploy/k8s/monitoring/prometheusrule.yaml", file=sys.stderr)


if __name__ == "__main__":
    main()
