"""Pinned git identity and config for the module-scoped base repositories.

The top-level conftest pins them per test; the base repositories are built once per
module, before that fixture runs, so the same pinning is applied around each module
(and undone after it).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conftest import GIT_ENV


@pytest.fixture(scope="module", autouse=True)
def _pinned_git_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    home = tmp_path_factory.mktemp("adv-home")
    (home / ".gitconfig").write_text(
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[core]\n\tautocrlf = false\n"
        "[advice]\n\tdetachedHead = false\n"
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        for key, value in GIT_ENV.items():
            mp.setenv(key, value)
        for key in (
            "GIT_DIR",
            "GIT_INDEX_FILE",
            "GIT_WORK_TREE",
            "PRE_COMMIT_FROM_REF",
            "PRE_COMMIT_TO_REF",
        ):
            mp.delenv(key, raising=False)
        yield
