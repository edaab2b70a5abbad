"""Benchmark figures, each next to the baseline it was measured beside, written as JSON and Markdown.

Machines are noisy, so every figure that can have one carries a baseline measured in the same
run (a bare XADD, a bare gRPC call, the stdlib's generator) and the ratio between the two.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parents[1] / "bench"


@dataclass
class Figure:
    section: str
    name: str
    value: float
    unit: str
    baseline: str = ""
    baseline_value: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if not self.baseline_value:
            return None
        return self.value / self.baseline_value


@dataclass
class Report:
    quick: bool
    figures: list[Figure] = field(default_factory=list)
    started: float = field(default_factory=time.time)

    def add(self, figure: Figure) -> Figure:
        self.figures.append(figure)
        ratio = f"  ({figure.ratio:.2f}x {figure.baseline})" if figure.ratio is not None else ""
        print(f"  {figure.section}: {figure.name}: {_fmt(figure.value)} {figure.unit}{ratio}", flush=True)
        return figure

    def write(self, directory: Path = RESULTS_DIR) -> tuple[Path, Path]:
        directory.mkdir(parents=True, exist_ok=True)
        meta = {
            "quick": self.quick,
            "python": sys.version.split()[0],
            "machine": platform.machine(),
            "cpus": _cpus(),
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started)),
            "seconds": round(time.time() - self.started, 1),
        }
        rows = [{**asdict(f), "ratio": f.ratio} for f in self.figures]
        json_path = directory / "results.json"
        json_path.write_text(json.dumps({"meta": meta, "figures": rows}, indent=2) + "\n")
        md_path = directory / "results.md"
        md_path.write_text(self.markdown(meta))
        return json_path, md_path

    def markdown(self, meta: dict[str, object]) -> str:
        lines = [
            "# Benchmark results",
            "",
            f"{meta['when']}, Python {meta['python']}, {meta['cpus']} CPUs, "
            f"{'quick' if meta['quick'] else 'full'} run in {meta['seconds']} s (`make bench`).",
            "",
        ]
        for section in dict.fromkeys(f.section for f in self.figures):
            lines += [
                f"## {section}",
                "",
                "| what | figure | baseline, same run | ratio |",
                "|---|---|---|---|",
            ]
            for f in (f for f in self.figures if f.section == section):
                base = f"{f.baseline}: {_fmt(f.baseline_value)} {f.unit}" if f.baseline_value else f.baseline
                ratio = f"{f.ratio:.2f}x" if f.ratio is not None else ""
                note = f" ({f.note})" if f.note else ""
                lines.append(f"| {f.name}{note} | {_fmt(f.value)} {f.unit} | {base} | {ratio} |")
            lines.append("")
        return "\n".join(lines)


def _fmt(value: float | None) -> str:
    if value is None:
        return ""
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0


def percentiles(samples: list[float]) -> tuple[float, float]:
    """(p50, p99) of the samples."""
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of another process (its threads included), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def own_cpu() -> float:
    """User + system CPU seconds of this process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
