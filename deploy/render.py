"""Write the per-game Kubernetes manifests from the registry: `make manifests`.

Every rules service is deployed the same way; only its name and module differ, so the
manifests are rendered from one template here rather than copied per game. A test fails
when the committed files differ from what this renders, and when a registered game has none.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

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
          image: {image}
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


def rules_manifest(game_id: str, name: str, image: str = "guildhall") -> str:
    """One rules Deployment (+ headless Service, HPA, PDB) of a game, named `name`."""
    return RULES_TEMPLATE.format(
        name=name,
        game=game_id,
        title=GAMES[game_id].title,
        target=f"dns:///{name}:{GRPC_PORT}",
        image=image,
        port=GRPC_PORT,
        metrics_port=METRICS_PORT,
        spread=spread(name),
        drain=DRAIN_SECONDS,
        grace=GRACE_SECONDS,
        termination=TERMINATION_GRACE,
    )


def rendered() -> dict[Path, str]:
    """Each generated manifest's path (relative to deploy/k8s/base) and its text."""
    files = {}
    for game_id in GAMES:
        name = service_name(game_id)
        files[Path(f"{name}.yaml")] = rules_manifest(game_id, name)
    endpoints = "".join(f"RULES_{g.upper()}={rules_target(g)}\n" for g in GAMES)
    files[Path("rules-endpoints.env")] = (
        "# Rendered by deploy/render.py (`make manifests`): the gateway's rules endpoint per game.\n"
        + endpoints
    )
    return files


# -- another rules version beside the current one (issue 40; docs/deploy.md "Upgrade") ----------

UPGRADE = BASE.parent / "overlays" / "upgrade"
RELEASE = re.compile(r"[a-z0-9]([a-z0-9-]{0,18}[a-z0-9])?")  # a DNS label part: rules-<game>-<release>
EXAMPLE_RELEASE = ("rattus_cartus", "next", "0.2.0")  # the committed example overlay (`make manifests`)
RELEASE_HEADER = """\
# Rendered by deploy/render.py (python -m deploy.render release{args}); do not edit by hand.
# {title}: release {release} (image tag {tag}) as its own Deployment and headless Service {where}
# the version in {base}, the gateway told about {told} (docs/deploy.md "Upgrade a game's rules").
# The base overlay's patches are applied again, so they reach the release's objects too.
# Render: kubectl kustomize <this directory>
"""
RETIRED_KINDS = (
    ("apps/v1", "Deployment"),
    ("v1", "Service"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("policy/v1", "PodDisruptionBudget"),
)


def release_overlay(
    game_id: str,
    release: str,
    tag: str,
    *,
    base: str = "../dev",
    base_patches: list[Any] | None = None,
    retire_current: bool = False,
    repository: str = "ghcr.io/guildhall/guildhall",
) -> dict[str, str]:
    """An overlay directory's files: `release` of the game (image `repository:tag`) deployed as
    `rules-<game>-<release>` beside the version in `base` (RULES_<GAME> naming both), or, with
    `retire_current`, instead of it (the base's rules objects deleted: its bundle stays in the
    archive). `base_patches`: the base overlay's own patches, applied again to reach the release."""
    if game_id not in GAMES:
        raise ValueError(f"no game {game_id!r} (registered: {', '.join(GAMES)})")
    if not RELEASE.fullmatch(release):
        raise ValueError(f"a release is 1-20 of a-z 0-9 -, not {release!r}")
    current, name = service_name(game_id), f"{service_name(game_id)}-{release}"
    targets = [f"dns:///{name}:{GRPC_PORT}"]
    if not retire_current:
        targets.insert(0, rules_target(game_id))
    patches = list(base_patches or [])
    if retire_current:
        patches += [
            {"patch": f"$patch: delete\napiVersion: {api}\nkind: {kind}\nmetadata: {{name: {current}}}\n"}
            for api, kind in RETIRED_KINDS
        ]
    document: dict[str, Any] = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "namespace": "guildhall",
        "resources": [base, f"{name}.yaml"],
        "images": [{"name": f"guildhall-{release}", "newName": repository, "newTag": tag}],
        "configMapGenerator": [
            {
                "name": "gateway-rules-endpoints",
                "behavior": "merge",
                "literals": [f"RULES_{game_id.upper()}={','.join(targets)}"],
            }
        ],
    }
    if patches:
        document["patches"] = patches
    args = f" --game {game_id} --release {release} --tag {tag} --base {base}"
    header = RELEASE_HEADER.format(
        args=args + (" --retire-current" if retire_current else ""),
        title=GAMES[game_id].title,
        release=release,
        tag=tag,
        where="instead of" if retire_current else "beside",
        base=base,
        told="it alone" if retire_current else "both",
    )
    kustomization = header + yaml.safe_dump(document, sort_keys=False, width=200)
    return {
        "kustomization.yaml": kustomization,
        f"{name}.yaml": rules_manifest(game_id, name, f"guildhall-{release}"),
    }


def base_patches(base: Path) -> list[Any]:
    """The patches of the overlay at `base` (its kustomization.yaml), none if it has none."""
    document = yaml.safe_load((base / "kustomization.yaml").read_text())
    return list(document.get("patches") or [])


def example_overlay() -> dict[Path, str]:
    """The committed example (deploy/k8s/overlays/upgrade): the dev overlay plus Rattus Cartus's
    next release beside its current one."""
    game_id, release, tag = EXAMPLE_RELEASE
    patches = base_patches(UPGRADE.parent / "dev")
    return {
        Path(name): text
        for name, text in release_overlay(game_id, release, tag, base_patches=patches).items()
    }


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


def main(argv: list[str] | None = None) -> None:
    """`make manifests` (no arguments), or `release ...`: an overlay for another rules release."""
    parser = argparse.ArgumentParser(prog="python -m deploy.render", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command")
    release = commands.add_parser(
        "release", help="an overlay deploying a game's release beside (or instead of) its current one"
    )
    release.add_argument("--game", required=True)
    release.add_argument("--release", required=True, help="its name in rules-<game>-<release>, e.g. r2")
    release.add_argument("--tag", required=True, help="the release's image tag")
    release.add_argument("--base", default="../dev", help="the overlay it extends, relative to --out")
    release.add_argument("--retire-current", action="store_true", help="the base's rules Deployment goes")
    release.add_argument("--repository", default="ghcr.io/guildhall/guildhall")
    release.add_argument("--out", type=Path, required=True, help="the overlay's directory (created)")
    args = parser.parse_args(argv)
    if args.command == "release":
        if args.game not in GAMES or not RELEASE.fullmatch(args.release):
            parser.error(f"--game is one of {', '.join(GAMES)}; --release is 1-20 of a-z 0-9 - (a DNS label)")
        args.out.mkdir(parents=True, exist_ok=True)  # first: the base is named relative to it
        try:
            files = release_overlay(
                args.game, args.release, args.tag, base=args.base, retire_current=args.retire_current,
                repository=args.repository, base_patches=base_patches(args.out / args.base),
            )  # fmt: skip
        except (ValueError, OSError) as error:
            parser.error(str(error))
        for name, text in files.items():
            (args.out / name).write_text(text)
            print(f"wrote {args.out / name}", file=sys.stderr)
        return
    for relative, text in rendered().items():
        (BASE / relative).write_text(text)
        print(f"wrote deploy/k8s/base/{relative}", file=sys.stderr)
    (MONITORING / "prometheusrule.yaml").write_text(rendered_prometheus_rule())
    print("wrote deploy/k8s/monitoring/prometheusrule.yaml", file=sys.stderr)
    UPGRADE.mkdir(exist_ok=True)
    for relative, text in example_overlay().items():
        (UPGRADE / relative).write_text(text)
        print(f"wrote deploy/k8s/overlays/upgrade/{relative}", file=sys.stderr)


if __name__ == "__main__":
    main()
