"""Settings are built once at the edge, from the environment over .env; secrets never show in repr."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.errors import ConfigurationError
from agent_core.settings import Settings
from agent_core.top.wiring import uses_model


def test_defaults_and_contract_names(tmp_path: Path) -> None:
    s = Settings.from_env({"HOME": str(tmp_path)}, dotenv_path=None)
    assert s.github_api_url == "https://api.github.com"
    assert s.github_token is None and s.api_key is None
    assert not uses_model(s)
    assert s.allow_local_paths and not s.hosted


def test_env_wins_over_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("GITHUB_TOKEN=from-file\nLLM_MODEL=file-model\nMAX_TURNS=7\n")
    s = Settings.from_env({"LLM_MODEL": "env-model", "CACHE_DIR": str(tmp_path / "c")}, dotenv_path=dotenv)
    assert s.github_token == "from-file" and s.llm_model == "env-model" and s.max_turns == 7
    assert s.cache_dir == tmp_path / "c"


def test_space_forces_local_paths_off() -> None:
    s = Settings.from_env({"SPACE_ID": "me/app", "ALLOW_LOCAL_PATHS": "true"}, dotenv_path=None)
    assert s.hosted and not s.allow_local_paths


def test_space_forces_local_paths_off_however_settings_are_built() -> None:
    assert not Settings(space_id="me/app", allow_local_paths=True).allow_local_paths
    assert not Settings().with_overrides(space_id="me/app").allow_local_paths
    assert Settings(allow_local_paths=True).allow_local_paths


def test_secrets_are_not_in_repr() -> None:
    s = Settings.from_env(
        {"GITHUB_TOKEN": "ghp_secret", "API_KEY": "sk-secret", "HF_TOKEN": "hf_secret"}, dotenv_path=None
    )
    assert "secret" not in repr(s)
    assert uses_model(s)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MAX_TURNS": "many"}, "MAX_TURNS"),
        ({"MCP_SERVER": "perhaps"}, "MCP_SERVER"),
        ({"GITHUB_API_URL": "ftp://x"}, "GITHUB_API_URL"),
        ({"REPORT_LANGUAGE": "fr"}, "REPORT_LANGUAGE"),
        ({"MAX_TURNS": "0"}, "MAX_TURNS"),
    ],
)
def test_bad_values_are_configuration_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Settings.from_env(env, dotenv_path=None)


def test_env_example_documents_every_setting() -> None:
    example = (Path(__file__).parent.parent / ".env.example").read_text()
    documented = {
        line.split("=", 1)[0].strip()
        for line in example.splitlines()
        if "=" in line and not line.startswith("#")
    }
    fields = {name.upper() for name in Settings.__dataclass_fields__}
    assert fields <= documented, fields - documented


def test_local_paths_follow_the_bind_address() -> None:
    """One decision: local paths only on a loopback bind (or with the flag that says it is dangerous)."""

    def local(env: dict[str, str]) -> bool:
        return Settings.from_env(env, dotenv_path=None).allow_local_paths

    assert local({})
    assert local({"GRADIO_SERVER_NAME": "127.0.0.1"})
    assert local({"GRADIO_SERVER_NAME": "::1"})
    assert local({"GRADIO_SERVER_NAME": "localhost"})
    assert not local({"GRADIO_SERVER_NAME": "0.0.0.0", "ALLOW_LOCAL_PATHS": "true"})
    assert not local({"HOST": "10.0.0.5"})
    assert not local({"GRADIO_SERVER_NAME": "myhost.example"})
    assert local({"GRADIO_SERVER_NAME": "0.0.0.0", "DANGEROUSLY_EXPOSE_LOCAL_PATHS": "true"})
    assert not local({"GRADIO_SERVER_NAME": "127.0.0.1", "ALLOW_LOCAL_PATHS": "false"})
    # Never on a Space, whatever else is set.
    assert not local({"SPACE_ID": "me/app", "DANGEROUSLY_EXPOSE_LOCAL_PATHS": "true"})
    assert not Settings(gradio_server_name="0.0.0.0").allow_local_paths
    assert not Settings().with_overrides(gradio_server_name="0.0.0.0").allow_local_paths
