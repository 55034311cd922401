"""Prompt files: every shipped one parses, renders, and is tagged with its role and version."""

from pathlib import Path

import pytest

from toolatlas.errors import ConfigError
from toolatlas.llm import parse_role_tag
from toolatlas.prompts import Prompt, load_prompt


class TestPromptFormat:
    def _write(self, tmp_path: Path, text: str) -> Prompt:
        import toolatlas.prompts as module

        path = tmp_path / "demo_role.md"
        path.write_text(text)
        original = module.PROMPTS_DIR
        module.PROMPTS_DIR = tmp_path
        load_prompt.cache_clear()
        try:
            return load_prompt("demo_role")
        finally:
            module.PROMPTS_DIR = original
            load_prompt.cache_clear()

    def test_messages_fill_placeholders_and_start_with_the_role_tag(self, tmp_path):
        """$names are filled, JSON braces are left alone, the system message opens with the tag."""
        prompt = self._write(tmp_path, "---\nrole: agent\nversion: 3\n---\n## system\nAnswer as {\"a\": 1}.\n"
                                       "## user\nTool: $tool costs $$5\n")
        system, user = prompt.messages(tool="read_file")
        assert system["content"].splitlines()[0] == "[toolatlas:role=agent v3 prompt=demo_role]"
        tag = parse_role_tag(system["content"])
        assert (tag.role, tag.version, tag.prompt) == ("agent", 3, "demo_role")
        assert '{"a": 1}' in system["content"]
        assert user == {"role": "user", "content": "Tool: read_file costs $5"}

    def test_a_missing_placeholder_names_the_file(self, tmp_path):
        prompt = self._write(tmp_path, "---\nrole: agent\nversion: 1\n---\n## system\ns\n## user\n$missing\n")
        with pytest.raises(ConfigError, match="demo_role.md.*missing"):
            prompt.messages()

    def test_front_matter_and_sections_are_checked(self, tmp_path):
        with pytest.raises(ConfigError, match="front matter"):
            self._write(tmp_path, "## system\ns\n## user\nu\n")
        with pytest.raises(ConfigError, match="version"):
            self._write(tmp_path, "---\nrole: agent\nversion: one\n---\n## system\ns\n## user\nu\n")
        with pytest.raises(ConfigError, match="section"):
            self._write(tmp_path, "---\nrole: agent\nversion: 1\n---\n## system\ns\n")

    def test_an_unknown_prompt_or_role_is_a_config_error(self, tmp_path):
        with pytest.raises(ConfigError, match="no prompt named"):
            load_prompt("no_such_prompt")
        with pytest.raises(ConfigError, match="not an LLM role"):
            self._write(tmp_path, "---\nrole: wizard\nversion: 1\n---\n## system\ns\n## user\nu\n")
