"""Run the docs' marked snippets (``<!-- snippet: NAME -->`` before a fenced block) the way a
user would, against a real bare remote and this checkout, and say exactly what was
substituted:

* ``REHYDRATE_GIT`` is ``git+file://localhost<this checkout>@<HEAD>`` (the docs' placeholder
  names a public home that does not exist here);
* the install snippet's ``python -m pip install "rehydrate @ $REHYDRATE_GIT"`` runs once
  per HEAD (``install_once``) as ``pip wheel --no-deps --no-build-isolation`` of the
  same requirement, the wheel then installed into a throwaway virtualenv (the test
  environment has the dependencies and hatchling); every other pip line, and the
  action's ``python -m venv`` line, is a no-op that reuses that virtualenv (``pipx`` is
  not run);
* a GitHub workflow runs its steps in order: ``actions/checkout`` is the CI clone made
  here (its ``fetch-depth`` must be 0), ``actions/setup-python`` is a no-op, a
  ``uses: …/rehydrate@…`` step runs this checkout's ``action.yml``, and ``run:``
  steps run in ``bash -eo pipefail`` with ``${{ github.* }}`` and ``${{ inputs.* }}``
  expanded from the event (any other expression fails the snippet);
* a GitLab job runs its ``script`` lines in one ``bash -eo pipefail``, in a clone of
  the pipeline's branch only (as the runner fetches), with the ``CI_*`` variables set;
  an ``include: remote:`` of ``ci-templates/gitlab/rehydrate.yml`` reads this
  checkout's file.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import yaml

ROOT = Path(__file__).resolve().parents[1]
MARK = re.compile(r"^<!-- snippet: ([a-z0-9-]+) -->\n```(\w+)\n(.*?)^```$", re.M | re.S)
FENCE = re.compile(r"^```(sh|yaml|bash|yml)$", re.M)
PIP = re.compile(r"^(\s*)\S*(?:python\S*\"? -m )?pip install (.*)$", re.M)
VENV = re.compile(r"^.*-m venv .*$", re.M)
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


class Snippet(NamedTuple):
    path: str
    name: str
    lang: str
    text: str


def snippets(path: Path) -> list[Snippet]:
    text = path.read_text(encoding="utf-8")
    rel = str(path.relative_to(ROOT))
    return [Snippet(rel, m[1], m[2], m[3]) for m in MARK.finditer(text)]


def unmarked_fences(path: Path) -> int:
    """Fenced sh/yaml blocks in ``path`` without a snippet marker (or a sample one)."""
    text = path.read_text(encoding="utf-8")
    marked = {m.start(2) - 3 for m in MARK.finditer(text)}
    return sum(1 for m in FENCE.finditer(text) if m.start() not in marked)


def head_sha() -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


class Tools(NamedTuple):
    """The session's one install of rehydrate from git, and the environment to use it."""

    prefix: Path  # the throwaway virtualenv
    env: dict[str, str]
    url: str


def install_once(cache: Path, install_line: str) -> Tools:
    """Run the install snippet's pip line for real, once per HEAD (a lock for xdist): the
    requirement is built into a wheel by ``pip wheel --no-deps --no-build-isolation`` with
    this interpreter, and the wheel installed into a throwaway virtualenv that borrows
    the test environment's dependencies (a .pth). A ``pip install --prefix`` would
    uninstall the test environment's own rehydrate."""
    import sysconfig

    url = f"git+file://localhost{ROOT}@{head_sha()}"  # pip wants a host in a file URL
    venv = cache / f"venv-{head_sha()[:12]}"
    env = {
        **os.environ,
        "REHYDRATE_GIT": url,
        "PATH": f"{venv / 'bin'}{os.pathsep}" + os.environ.get("PATH", ""),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / "bin" / "rehydrate").exists():
            wheels = cache / f"wheels-{head_sha()[:12]}"
            line = PIP.sub(
                rf"\1'{sys.executable}' -m pip wheel --quiet --no-deps --no-build-isolation "
                rf"--wheel-dir '{wheels}' \2",
                install_line,
            )
            proc = run_bash(line, cache, env)
            assert proc.returncode == 0, f"the install snippet failed:\n{proc.stderr}"
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
            version = f"python{sys.version_info.major}.{sys.version_info.minor}"
            site = venv / "lib" / version / "site-packages"
            (site / "rehydrate-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
            (wheel,) = wheels.glob("rehydrate-*.whl")
            pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
            subprocess.run([*pip, "install", "--quiet", "--no-deps", str(wheel)], check=True)
    return Tools(venv, env, url)


def substitute(script: str) -> str:
    """A snippet's shell with its installs made no-ops (the session installed once). An
    install line this does not recognise fails the snippet: run as it stands, it would
    install into whatever Python is on PATH."""
    script = PIP.sub(r"\1: pip install \2  # installed once this session", script)
    script = VENV.sub(": the venv line  # the session's install is used", script)
    live = [
        line
        for line in script.splitlines()
        if re.search(r"\bpip\w*\b.*\binstall\b", line) and not line.lstrip().startswith(":")
    ]
    assert not live, f"the snippet runner would run a real install: {live}"
    return script


def run_bash(script: str, cwd: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _expand(text: str, context: Mapping[str, Any]) -> str:
    def one(match: re.Match[str]) -> str:
        parts = match[1].split(".")
        if parts[0] not in context or not all(re.fullmatch(r"[a-z_-]+", p, re.I) for p in parts):
            raise AssertionError(f"the snippet runner does not know ${{{{ {match[1]} }}}}")
        node: Any = context
        for part in parts:
            node = node.get(part) if isinstance(node, Mapping) else None
        if isinstance(node, bool):
            return "true" if node else "false"
        return "" if node is None else str(node)

    return EXPR.sub(one, text)


class Job(NamedTuple):
    code: int
    err: str


def run_github(workflow: str, clone: Path, event: str, payload: dict[str, Any], tools: Tools):
    """Run a workflow's one job as GitHub Actions would, on ``clone``."""
    doc = yaml.safe_load(workflow)
    (job,) = doc["jobs"].values()
    event_path = clone.parent / f"{clone.name}-event.json"
    event_path.write_text(json.dumps(payload))
    temp = clone.parent / f"{clone.name}-runner"
    (temp / "rehydrate").mkdir(parents=True, exist_ok=True)
    bin_link = temp / "rehydrate" / "bin"
    if not bin_link.exists():
        bin_link.symlink_to(tools.prefix / "bin")
    workflow_env = {k: str(v) for k, v in (doc.get("env") or {}).items()}
    env = {
        **tools.env,
        **workflow_env,
        "REHYDRATE_GIT": tools.url,  # the docs' placeholder, replaced
        "CI": "true",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_path),
        "RUNNER_TEMP": str(temp),
    }
    context = {"github": {"event_name": event, "event": payload, "action_path": str(ROOT)}}
    return _steps(job["steps"], clone, env, context)


def _steps(steps: list[dict[str, Any]], clone: Path, env: dict[str, str], context: dict) -> Job:
    for step in steps:
        uses = step.get("uses")
        if uses is not None:
            if uses.startswith("actions/checkout@"):
                depth = (step.get("with") or {}).get("fetch-depth")
                assert depth in (0, "0"), "actions/checkout needs fetch-depth: 0"
                continue
            if uses.startswith("actions/setup-python@"):
                continue
            if re.fullmatch(r"[\w.-]+/rehydrate@[\w.-]+|\./?", uses):
                action = yaml.safe_load((ROOT / "action.yml").read_text())
                inputs = {k: v.get("default", "") for k, v in action.get("inputs", {}).items()}
                inputs.update(step.get("with") or {})
                job = _steps(action["runs"]["steps"], clone, env, {**context, "inputs": inputs})
                if job.code:
                    return job
                continue
            raise AssertionError(f"the snippet runner does not know the action {uses}")
        step_env = {k: _expand(str(v), context) for k, v in (step.get("env") or {}).items()}
        script = substitute(_expand(step["run"], context))
        proc = run_bash(script, clone, {**env, **step_env})
        if proc.returncode:
            return Job(proc.returncode, proc.stdout + proc.stderr)
    return Job(0, "")


def gitlab_job(text: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The job of a GitLab snippet (an ``include`` of the template is read from here),
    and the top-level variables."""
    doc = yaml.safe_load(text)
    variables = {k: str(v) for k, v in (doc.pop("variables", None) or {}).items()}
    for entry in doc.pop("include", None) or []:
        remote = entry["remote"]
        assert remote.endswith("/ci-templates/gitlab/rehydrate.yml"), remote
        doc.update(yaml.safe_load((ROOT / "ci-templates/gitlab/rehydrate.yml").read_text()))
    (job,) = (v for v in doc.values() if isinstance(v, dict) and "script" in v)
    return job, variables


def run_gitlab(text: str, clone: Path, ci: Mapping[str, str], tools: Tools) -> Job:
    job, variables = gitlab_job(text)
    assert str((job.get("variables") or {}).get("GIT_DEPTH")) == "0", "GIT_DEPTH must be 0"
    env = {
        **tools.env,
        **variables,
        **{k: str(v) for k, v in (job.get("variables") or {}).items()},
        "CI": "true",
        "CI_DEFAULT_BRANCH": "main",
        **ci,
        "REHYDRATE_GIT": tools.url,  # the docs' placeholder, replaced
    }
    proc = run_bash(substitute("\n".join(job["script"])), clone, env)
    return Job(proc.returncode, proc.stdout + proc.stderr)
