"""Where the command line's settings come from: a flag, else an environment variable, else the
config file, else the default.

The config file is TOML, `$GUILDHALL_CONFIG` or `~/.config/guildhall/config.toml`:

    target = "gateway.example.com:443"
    tls = true
    api_key = "ghk_..."          # a tenant key (operators), or:
    token = "ght1...."           # a seat or spectator token
    player_id = "alice"
    timeout = 15
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_CONFIG = Path("~/.config/guildhall/config.toml")
KEYS = ("target", "tls", "api_key", "token", "player_id", "timeout")
ENV = {key: f"GUILDHALL_{key.upper()}" for key in KEYS}
DEFAULTS: dict[str, Any] = {
    "target": "localhost:50051",
    "tls": False,
    "api_key": "",
    "token": "",
    "player_id": "",
    "timeout": 15.0,
}


class ConfigError(ValueError):
    """The config file cannot be read or has a key of the wrong type."""


@dataclass(frozen=True)
class Settings:
    target: str
    tls: bool
    api_key: str
    token: str
    player_id: str
    timeout: float
    config_path: str


def config_path(explicit: str | None = None) -> Path:
    return Path(explicit or os.environ.get("GUILDHALL_CONFIG") or DEFAULT_CONFIG).expanduser()


def load_file(path: Path) -> dict[str, Any]:
    """The config file's settings ({} if there is none); unknown keys are an error, so a typo shows."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(KEYS)}")
    for key, value in data.items():
        expected = type(DEFAULTS[key])
        if expected is float and isinstance(value, int):
            continue
        if not isinstance(value, expected):
            raise ConfigError(f"{path}: {key} must be a {expected.__name__}")
    return data


def _from_env(key: str) -> Any:
    raw = os.environ.get(ENV[key])
    if raw is None or raw == "":
        return None
    if isinstance(DEFAULTS[key], bool):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(DEFAULTS[key], float):
        try:
            return float(raw)
        except ValueError:
            raise ConfigError(f"{ENV[key]} must be a number, not {raw!r}") from None
    return raw


def resolve(flags: dict[str, Any], config: str | None = None) -> Settings:
    """Flags (None = not given) over environment over config file over defaults."""
    path = config_path(config)
    file = load_file(path)
    values: dict[str, Any] = {}
    for key in KEYS:
        for source in (flags.get(key), _from_env(key), file.get(key), DEFAULTS[key]):
            if source is not None:
                values[key] = source
                break
    return Settings(config_path=str(path), **values)
