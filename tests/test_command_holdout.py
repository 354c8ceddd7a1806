"""A hold-out set for the command check, written before reading the matcher (issue 28).

Each case is (row's Tried cell, command, expected outcome), labelled by what the command
*runs*, not by how the matcher happens to read it:

* ``R`` refuse: the same invocation (another spelling, a wrapper, a shell or an
  interpreter handed it, a cosmetic option more, a statically known variable);
* ``C`` advise: a near miss the docs promise to name (same program and subcommand,
  something shared, something different): allowed, with the row named;
* ``A`` allow: a different act (another branch, target, package, directory, toolchain,
  environment, a dry run, a read-only subcommand, data that only mentions it). It must
  not be refused; whether it is advised is not judged.

Decisions taken here (docs/check-command.md says the same):

* ``--force-with-lease`` is not ``--force``: it refuses to overwrite work it has not
  seen, which is the usual workaround for a force push that lost commits; advised.
* ``git push origin +main`` is ``git push --force origin main`` (a ``+`` refspec forces
  that one ref); ``git push origin main +dev`` forces only ``dev``: another act.
* ``GOFLAGS=-tags=musl go test`` is ``go test -tags=musl`` (the go command reads
  GOFLAGS as flags given first); another GOFLAGS value is another act.
* ``build``, ``build/``, ``./build``, ``build//`` and ``./build/`` name one directory;
  ``../build``, ``/build`` and ``build/cache`` do not.
* ``env -i``/``env -u X`` remove environment the row ran with; that may be the
  workaround, so never refused.
* ``T=musl go test -tags=$T`` expands ``$T`` before the assignment applies: ``-tags=``
  (empty) is another act. ``(T=musl); … $T`` does not leak out of the subshell.
* A program named by a static expansion (``G=git; $G …``, ``"$(echo git)" …``) runs
  that program and is refused; one whose value is unknown (``${T:-musl}``, a value set
  in a branch) is never refused.
"""

from __future__ import annotations

import pytest

from rehydrate.agents.commands import attempts_in_cell, commands_in, match

R, C, A = "R", "C", "A"

PUSH = "`git push --force origin main`"
MUSL = "`go test -tags=musl ./...`"
RMB = "`rm -rf build`"
RESET = "`git reset --hard HEAD~1`"
CGO = "`CGO_ENABLED=0 go build ./...`"
NPM = "`npm install --legacy-peer-deps`"
CARGO = "`cargo build --release`"
DOCKER = "`docker build -t app:dev .`"
KUBE = "`kubectl delete pod web-0 -n prod`"
TF = "`terraform apply -auto-approve`"
PYTEST = "`pytest -x tests/test_api.py`"
PIP = "`pip install -r requirements.txt`"
MAKE = "`make deploy-fast`"
YARN = "`yarn add --dev lodash`"
PNPM = "`pnpm install --frozen-lockfile`"
PLUS = "`git push origin +main`"
GOFLAGS = "`GOFLAGS=-tags=musl go test ./...`"

HOLDOUT: list[tuple[str, str, str]] = [
    # --- git push --force origin main: refspec force, aliases, spellings
    (PUSH, "git push origin +main", R),
    (PUSH, "git push -f origin +main", R),
    (PUSH, "git push origin main --force", R),
    (PUSH, "git push origin main -f", R),
    (PUSH, "git push --force origin main --verbose", R),
    (PUSH, "git push --force origin main 2>&1 | tail -5", R),
    (PUSH, "git --no-pager push --force origin main", R),
    (PUSH, "git push --force origin main # once more", R),
    (PUSH, "git push --force origin ma''in", R),
    (PUSH, "'g'it push --force origin main", R),
    (PUSH, "g\\it push -f origin main", R),
    (PUSH, '"git" "push" "--force" "origin" "main"', R),
    (PUSH, "G=git; $G push --force origin main", R),
    (PUSH, "git push --force-with-lease origin main", C),
    (PUSH, "git push --force origin my-feature", C),
    (PUSH, "git push origin +my-feature", A),
    (PUSH, "git push --force upstream main", A),
    (PUSH, "git push origin main +dev", A),
    (PUSH, "git push origin :main", A),
    (PUSH, "git push origin --delete main", A),
    (PUSH, "git push --force --dry-run origin main", A),
    (PUSH, "git push origin +main --dry-run", A),
    (PUSH, "git -C ../fork push --force origin main", A),
    (PUSH, "git push origin main", A),
    (PUSH, "git fetch origin main", A),
    (PLUS, "git push --force origin main", R),
    (PLUS, "git push -f origin main", R),
    (PLUS, "git push origin main", A),
    # --- interpreters handed the push
    (
        PUSH,
        'python3 -c "import subprocess; '
        "subprocess.run(['git', 'push', '--force', 'origin', 'main'])\"",
        R,
    ),
    (PUSH, "node -e \"require('child_process').execSync('git push --force origin main')\"", R),
    (
        PUSH,
        "node -e \"require('child_process').execFileSync('git',"
        " ['push', '-f', 'origin', 'main'])\"",
        R,
    ),
    (PUSH, "node --eval \"require('child_process').execSync('git push -f origin main')\"", R),
    (PUSH, "perl -e 'system(\"git push --force origin main\")'", R),
    (PUSH, 'perl -e \'system("git", "push", "--force", "origin", "main")\'', R),
    (PUSH, "ruby -e 'system(\"git push --force origin main\")'", R),
    (PUSH, "ruby -e '`git push -f origin main`'", R),
    (PUSH, "node -e \"console.log('git push --force origin main')\"", A),
    (PUSH, "perl -e 'print \"git push --force origin main\\n\"'", A),
    (PUSH, "ruby -e 'puts \"git push --force origin main\"'", A),
    (PUSH, "node -e \"require('child_process').execSync('git push --force origin dev')\"", A),
    (PUSH, "perl -e 'system(\"git push origin main\")'", A),
    (
        PUSH,
        "python3 -c \"import subprocess; subprocess.run(['git', 'push', 'origin', 'main'])\"",
        A,
    ),
    # --- shells handed the push
    (PUSH, "sh -c 'git push --force origin main'", R),
    (PUSH, "bash -lc 'git push --force origin main'", R),
    (PUSH, "zsh -c 'git push --force origin main'", R),
    (PUSH, "dash -c 'git push --force origin main'", R),
    (PUSH, "bash -euo pipefail -c 'git push --force origin main'", R),
    (PUSH, "bash <<< 'git push --force origin main'", R),
    (PUSH, "bash <<'EOF'\ngit fetch\ngit push --force origin main\nEOF", R),
    (PUSH, ". <(echo 'git push --force origin main')", R),
    (PUSH, "source <(printf '%s\\n' 'git push --force origin main')", R),
    (PUSH, "echo $(git push --force origin main)", R),
    (PUSH, "echo `git push --force origin main`", R),
    (PUSH, "bash -c 'echo git push --force origin main'", A),
    (PUSH, "cat <<'EOF'\ngit push --force origin main\nEOF", A),
    (PUSH, "sh -c 'git push --force origin dev'", A),
    # --- go test -tags=musl ./...: GOFLAGS, wrappers, variables
    (MUSL, "GOFLAGS=-tags=musl go test ./...", R),
    (MUSL, 'GOFLAGS="-tags=musl" go test ./...', R),
    (MUSL, "env GOFLAGS=-tags=musl go test ./...", R),
    (MUSL, "export GOFLAGS=-tags=musl; go test ./...", R),
    (MUSL, "GOFLAGS=-tags=darwin go test ./...", A),
    (MUSL, "GOFLAGS=-mod=vendor go test -tags=musl ./...", A),
    (GOFLAGS, "go test -tags=musl ./...", R),
    (GOFLAGS, "go test --tags musl ./...", R),
    (GOFLAGS, "go test ./...", A),
    (MUSL, "nice -n5 go test -tags=musl ./...", R),
    (MUSL, "nice --adjustment=5 go test -tags=musl ./...", R),
    (MUSL, "ionice -c3 go test -tags=musl ./...", R),
    (MUSL, "ionice -c 2 -n 7 nice -n 19 go test -tags=musl ./...", R),
    (MUSL, "timeout 10 go test -tags=musl ./...", R),
    (MUSL, "timeout -k 5s 1m go test -tags=musl ./...", R),
    (MUSL, "timeout --signal=KILL 5m go test -tags=musl ./...", R),
    (MUSL, "time -p go test -tags=musl ./...", R),
    (MUSL, "nohup go test -tags=musl ./... > out.log 2>&1 &", R),
    (MUSL, "stdbuf -oL -eL go test -tags=musl ./...", R),
    (MUSL, "command go test -tags=musl ./...", R),
    (MUSL, "command -p go test -tags=musl ./...", R),
    (MUSL, "builtin eval 'go test -tags=musl ./...'", R),
    (MUSL, "exec go test -tags=musl ./...", R),
    (MUSL, "doas -u ci go test -tags=musl ./...", R),
    (MUSL, "sudo -u ci -- go test -tags=musl ./...", R),
    (MUSL, "sudo -E -H go test -tags=musl ./...", R),
    (MUSL, "chronic go test -tags=musl ./...", R),
    (MUSL, "unbuffer go test -tags=musl ./...", R),
    (MUSL, "setsid go test -tags=musl ./...", R),
    (MUSL, "taskset -c 0 go test -tags=musl ./...", R),
    (MUSL, "find . -maxdepth 0 -exec go test -tags=musl ./... \\;", R),
    (MUSL, "printf '' | xargs go test -tags=musl ./...", R),
    (MUSL, "env -i PATH=/usr/bin:/bin go test -tags=musl ./...", A),
    (MUSL, "env -u GOFLAGS go test -tags=musl ./...", A),
    (MUSL, "timeout 10 go test ./...", C),
    (MUSL, "nice -n5 go vet -tags=musl ./...", A),
    (MUSL, "sudo -u ci go test -tags=darwin ./...", A),
    (MUSL, "command -v go", A),
    (MUSL, "T=musl && go test -tags=$T ./...", R),
    (MUSL, 'export T=musl; go test -tags="$T" ./...', R),
    (MUSL, "T=darwin; T=musl; go test -tags=$T ./...", R),
    (MUSL, "(T=musl; go test -tags=$T ./...)", R),
    (MUSL, "T=musl; (go test -tags=$T ./...)", R),
    (MUSL, "T=musl go test -tags=$T ./...", A),
    (MUSL, "T=musl; unset T; go test -tags=$T ./...", A),
    (MUSL, "T=musl; T=darwin; go test -tags=$T ./...", A),
    (MUSL, "(T=musl); go test -tags=$T ./...", A),
    (MUSL, "go test -tags=${T:-musl} ./...", A),
    (MUSL, "if true; then T=musl; fi; go test -tags=$T ./...", A),
    (MUSL, "'g'o test -tags=musl ./...", R),
    (MUSL, "go test -tags=m\\usl ./...", R),
    (MUSL, "go test -tags=$'musl' ./...", R),
    (MUSL, "go test \\\n  -tags=musl \\\n  ./...", R),
    (MUSL, '"$(echo go)" test -tags=musl ./...', R),
    # interpreters and scripts read from heredocs
    (
        MUSL,
        'python3 -c "import subprocess; '
        "subprocess.check_call('go test -tags=musl ./...', shell=True)\"",
        R,
    ),
    (
        MUSL,
        "node -e \"require('child_process').spawnSync('go',"
        " ['test', '-tags=musl', './...'], {stdio: 'inherit'})\"",
        R,
    ),
    (
        MUSL,
        "node -e \"const {execSync} = require('child_process'); "
        "execSync('go test -tags=musl ./...')\"",
        R,
    ),
    (MUSL, 'perl -e \'exec "go", "test", "-tags=musl", "./..."\'', R),
    (MUSL, "perl -E 'system(\"go test -tags=musl ./...\")'", R),
    (MUSL, 'ruby -e \'exec("go", "test", "-tags=musl", "./...")\'', R),
    (MUSL, "ruby -e 'puts `go test -tags=musl ./...`'", R),
    (MUSL, "perl -e 'system(\"go vet -tags=musl ./...\")'", A),
    (MUSL, "ruby -e 'puts \"go test -tags=musl ./...\"'", A),
    (MUSL, "python3 -c \"print('go test -tags=musl ./...')\"", A),
    (MUSL, "sh -s <<< 'go test -tags=musl ./...'", R),
    (MUSL, 'bash <<< "go test -tags=musl ./..."', R),
    (
        MUSL,
        "bash <<EOF\ncd svc\ngo test -tags=musl ./...\nEOF",
        A,
    ),  # another directory (holdout2: cd is modelled)
    (MUSL, "cat > run.sh <<'EOF'\ngo test -tags=musl ./...\nEOF", A),
    # --- rm -rf build: path spellings
    (RMB, "rm -rf build/", R),
    (RMB, "rm -rf ./build", R),
    (RMB, "rm -rf build//", R),
    (RMB, "rm -rf ./build/", R),
    (RMB, 'rm -rf "build"', R),
    (RMB, "rm --recursive --force build", R),
    (RMB, "rm -Rf build", R),
    (RMB, "rm -rf -- build", R),
    (RMB, "\\rm -rf build", R),
    (RMB, "command rm -rf build/", R),
    (RMB, "cd . && rm -rf build", R),
    (RMB, "rm -rf build dist", A),
    (RMB, "rm -rf build/cache", A),
    (RMB, "rm -rf ../build", A),
    (RMB, "rm -rf /build", A),
    (RMB, "rm -rf Build", A),
    (RMB, "rm -ri build", A),
    (RMB, "ls build/", A),
    # --- git reset --hard HEAD~1: global options that change nothing
    (RESET, "git -c core.pager=cat reset --hard HEAD~1", R),
    (RESET, "git -c color.ui=never reset --hard HEAD~1", R),
    (RESET, "git --no-pager reset --hard HEAD~1", R),
    (RESET, "git reset -q --hard HEAD~1", R),
    (RESET, "git stash && git reset --hard HEAD~1", R),
    (RESET, "git reset --hard HEAD~2", C),
    (RESET, "git reset --soft HEAD~1", C),
    (RESET, "git -C ../other reset --hard HEAD~1", A),
    (RESET, "git -c core.hooksPath=/dev/null reset --hard HEAD~1", A),
    (RESET, "git log --oneline HEAD~1", A),
    # --- CGO_ENABLED=0 go build ./...
    (CGO, "env CGO_ENABLED=0 go build ./...", R),
    (CGO, "export CGO_ENABLED=0 && go build ./...", R),
    (CGO, "NO_COLOR=1 CGO_ENABLED=0 go build ./...", R),
    (CGO, "CGO_ENABLED=1 go build ./...", A),
    (CGO, "CGO_ENABLED=0 GOOS=linux go build ./...", A),
    (CGO, "CGO_ENABLED=0 go build -o bin/app ./...", A),
    (CGO, "go build ./...", C),
    # --- npm / yarn / pnpm
    (NPM, "npm i --legacy-peer-deps", R),
    (NPM, "npm install --legacy-peer-deps --silent", R),
    (NPM, "npm add --legacy-peer-deps", R),
    (NPM, "npm install --legacy-peer-deps=true", R),
    (NPM, "npm ci --legacy-peer-deps", A),
    (NPM, "npm install --force", A),
    (NPM, "npm ls --legacy-peer-deps", A),
    (YARN, "yarn add -D lodash", R),
    (YARN, "yarn add lodash --dev", R),
    (YARN, "yarn add -D lodash@4", A),
    (YARN, "yarn remove lodash", A),
    (PNPM, "pnpm i --frozen-lockfile", R),
    (PNPM, "pnpm install --no-frozen-lockfile", A),
    # --- cargo
    (CARGO, "cargo build -r", R),
    (CARGO, "cargo b --release", R),
    (CARGO, "cargo build --release -j 8", R),
    (CARGO, "cargo build --release --quiet", R),
    (CARGO, "cargo +nightly build --release", A),
    (CARGO, "cargo build --release -p core", A),
    (CARGO, "cargo check --release", A),
    (CARGO, "cargo build", C),
    # --- docker
    (DOCKER, "docker build --tag app:dev .", R),
    (DOCKER, "docker build --tag=app:dev .", R),
    (DOCKER, "docker image build -t app:dev .", R),
    (DOCKER, "docker build . -t app:dev", R),
    (DOCKER, "docker build -t app:prod .", C),
    (DOCKER, "docker build -t app:dev ./api", A),
    (DOCKER, "docker --context remote build -t app:dev .", A),
    (DOCKER, "docker build -t app:dev -f Dockerfile.alpine .", A),
    (DOCKER, "docker images app:dev", A),
    # --- kubectl
    (KUBE, "kubectl -n prod delete pod web-0", R),
    (KUBE, "kubectl delete pod web-0 --namespace=prod", R),
    (KUBE, "kubectl delete pod web-0 --namespace prod", R),
    (KUBE, "kubectl delete pod web-1 -n prod", C),
    (KUBE, "kubectl delete pod web-0 -n staging", A),
    (KUBE, "kubectl get pod web-0 -n prod", A),
    (KUBE, "kubectl --context staging delete pod web-0 -n prod", A),
    (KUBE, "kubectl delete pod web-0 -n prod --dry-run=client", A),
    # --- terraform
    (TF, "terraform apply --auto-approve", R),
    (TF, "terraform apply -auto-approve -no-color", R),
    (TF, "terraform apply -auto-approve=true", R),
    (TF, "terraform -chdir=infra apply -auto-approve", A),
    (TF, "terraform plan", A),
    (TF, "terraform destroy -auto-approve", A),
    (TF, "terraform apply -auto-approve -target=module.db", A),
    # --- pytest
    (PYTEST, "python -m pytest --exitfirst tests/test_api.py", R),
    (PYTEST, "py.test -x tests/test_api.py", R),
    (PYTEST, "pytest tests/test_api.py -x -q", R),
    (PYTEST, "pytest -x ./tests/test_api.py", R),
    (PYTEST, "pytest -x tests/test_api.py::test_login", C),
    (PYTEST, "pytest -x tests/", C),
    (PYTEST, "pytest -x -k slow tests/test_api.py", A),
    (PYTEST, "pytest -x tests/test_api.py -p no:cacheprovider", A),
    # --- pip
    (PIP, "pip install --requirement requirements.txt", R),
    (PIP, "pip install --requirement=requirements.txt", R),
    (PIP, "python3 -m pip install -r requirements.txt", R),
    (PIP, "pip3 install -r requirements.txt", R),
    (PIP, "pip install -r ./requirements.txt", R),
    (PIP, "pip install -qr requirements.txt", R),
    (PIP, "pip install -r requirements-dev.txt", C),
    (PIP, "pip download -r requirements.txt", A),
    (PIP, "pip install -r requirements.txt --user", A),
    (PIP, "uv pip install -r requirements.txt", A),
    # --- make
    (MAKE, "make -s deploy-fast", R),
    (MAKE, "make --jobs=4 deploy-fast", R),
    (MAKE, "make -j deploy-fast", R),
    (MAKE, "make deploy-fast -j8", R),
    (MAKE, "make -n deploy-fast", A),
    (MAKE, "make deploy", A),
    (MAKE, "make -C infra deploy-fast", A),
    (MAKE, "make deploy-fast ENV=prod", A),
]


def verdict(tried: str, command: str) -> str | None:
    """As the corpus reads it: an exact match anywhere wins, else the first close one."""
    found = None
    for attempt in attempts_in_cell(tried):
        for candidate in commands_in(command):
            kind = match(candidate, attempt)
            if kind == "exact" or (kind and found is None):
                found = kind
    return found


def right(expected: str, found: str | None) -> bool:
    if expected == R:
        return found == "exact"
    if expected == C:
        return found == "close"
    return found != "exact"


def test_the_holdout_is_big_and_every_refusal_has_a_twin() -> None:
    assert len(HOLDOUT) >= 120
    assert len({(t, c) for t, c, _ in HOLDOUT}) == len(HOLDOUT)
    refused_rows = {t for t, _, e in HOLDOUT if e == R}
    allowed_rows = {t for t, _, e in HOLDOUT if e != R}
    assert refused_rows <= allowed_rows


@pytest.mark.parametrize(("tried", "command", "expected"), HOLDOUT)
def test_holdout(tried: str, command: str, expected: str) -> None:
    found = verdict(tried, command)
    assert right(expected, found), (tried, command, expected, found)
