"""Command-line settings: flag over environment over config file over default."""

from __future__ import annotations

import pytest

from guildhall_client.config import ConfigError, resolve


@pytest.fixture
def clean_env(monkeypatch):
    for key in ("TARGET", "TLS", "API_KEY", "TOKEN", "PLAYER_ID", "TIMEOUT", "CONFIG"):
        monkeypatch.delenv(f"GUILDHALL_{key}", raising=False)
    return monkeypatch


def test_defaults_apply_when_nothing_is_given(clean_env, tmp_path):
    settings = resolve({}, str(tmp_path / "none.toml"))
    assert settings.target == "localhost:50051" and settings.tls is False and settings.timeout == 15.0


def test_a_flag_beats_the_environment_which_beats_the_file(clean_env, tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('target = "file:1"\napi_key = "ghk_file"\nplayer_id = "filer"\ntimeout = 3\n')
    clean_env.setenv("GUILDHALL_TARGET", "env:2")
    clean_env.setenv("GUILDHALL_API_KEY", "ghk_env")
    settings = resolve({"target": "flag:3"}, str(path))
    assert settings.target == "flag:3"  # flag
    assert settings.api_key == "ghk_env"  # environment over file
    assert settings.player_id == "filer"  # file over default
    assert settings.timeout == 3


def test_the_config_file_is_found_through_guildhall_config(clean_env, tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("tls = true\n")
    clean_env.setenv("GUILDHALL_CONFIG", str(path))
    assert resolve({}).tls is True


def test_a_typo_or_wrong_type_in_the_config_file_is_an_error_naming_it(clean_env, tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('targte = "x"\n')
    with pytest.raises(ConfigError, match="targte"):
        resolve({}, str(path))
    path.write_text("tls = 3\n")
    with pytest.raises(ConfigError, match="tls"):
        resolve({}, str(path))
    clean_env.setenv("GUILDHALL_TIMEOUT", "soon")
    path.write_text("")
    with pytest.raises(ConfigError, match="GUILDHALL_TIMEOUT"):
        resolve({}, str(path))
