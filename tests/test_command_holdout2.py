"""A second hold-out of the failure memory's command matching (issue 28 items 1 and 2).

Written from docs/check-command.md, the issue and how shells and tools behave, BEFORE
reading the matcher (agents/invocation.py, tooltable.py, commandline.py, shell.py,
matching.py), the corpus or the first hold-out. Each case is labelled by what the
command RUNS compared with what the row recorded (at the repository root): the same
invocation is ``refuse``; another act, or one whose act is not statically knowable, is
``allow`` (an advice is an allow). Every case goes through the CLI's entry point
(``rehydrate check-command --json -- CMD``: exit 1 refuse, 0 allow) in a real git
repository holding that one row, added with ``rehydrate fail add``.

``{root}`` in a command stands for the repository's absolute path.

Score before any fix (the matcher at 7a2699f, run once the cases were committed): 314 of
374 right (84.0 %); 22 wrong refusals, 38 misses.

Wrong refusals, by class:
* the working directory: a `cd`/`pushd` to another (or an unknown) directory before the
  command: `cd /tmp && rm -rf build`, `cd sub && …`, `cd sub; …`, `(cd sub && …)`,
  `pushd sub && …`, `cd - && …`, `cd "$OLDPWD" && …`, `cd && …`, `cd ~ && …`, `bash -c
  'cd sub && …'`, `cd web && npm install …` and `cd /tmp && npm install …` (row at the
  root), `npm install …` and `cd api && npm install …` (row `cd web && npm install …`),
  `cd scripts && ./deploy.sh staging` (15);
* a login shell, another directory: `sudo -i`, `sudo --login`, `su - -c`, `su -l -c` (4);
* `systemd-run` without `--same-dir` (the manager's directory) (1);
* what runs nothing: `builtin rm …` (not a builtin), `f() { rm -rf build; }` never
  called (2).
(`runuser -l` was allowed, right.)

Misses, by class:
* git push refspecs: `main:main`, `main:refs/heads/main`, `refs/heads/main`,
  `refs/heads/main:refs/heads/main`, `+main:main`, `+main:refs/heads/main`,
  `+refs/heads/main:refs/heads/main`; `git -C .` (8);
* options from the environment: `npm_config_legacy_peer_deps=true` (also upper case,
  exported, through env), `npm_config_loglevel=silent` (cosmetic), `TF_CLI_ARGS_apply`,
  `TF_LOG` (logging), `PYTEST_ADDOPTS=-x` (8);
* the directory spelled another way: `cd web && make deploy`, `(cd web && make deploy)`
  for `make -C web deploy`; `rm -rf {root}/build` (3);
* xargs with a static stdin (`echo build |`, `printf 'build\n' |`, `<<< build`, `-r`,
  `-n1`, `-I`) (7);
* shells handed the text: `bash -s -- x <<< '…'`, `eval "$(echo …)"`, `… | tee F | sh` (3);
* wrappers: `su root -c '…'`, `runuser -u root -- …` (2);
* option values that are one: `cargo build --profile release` (and `=`), `pytest
  --maxfail=1` (= `-x`), `docker build -t app:latest` (= `app`), `pip install -e ./` (5);
* other: `yarn run build` for `yarn build`, `rm -rf {build,}` (brace expansion) (2).

After the fixes (each class in the model: the working directory in commandline/invocation,
the table's new columns, xargs fed in the line, functions read where called, brace
expansion): 374 of 374. One label was changed on reading the code: `cd web; npm install
--legacy-peer-deps` for the row `cd web && npm install --legacy-peer-deps` is allow (when
`cd web` fails, npm runs at the root: not statically the same act).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import git, run

ROWS = {
    "push": "git push --force origin main",
    "npm": "npm install --legacy-peer-deps",
    "npmweb": "cd web && npm install --legacy-peer-deps",
    "rm": "rm -rf build",
    "cargo": "cargo build --release",
    "docker": "docker build -t app .",
    "kube": "kubectl delete pod web-0 --force --grace-period=0",
    "tf": "terraform apply -auto-approve",
    "pytest": "pytest -x tests/test_api.py",
    "make": "make -C web deploy",
    "go": "go test -tags=musl ./...",
    "pip": "pip install -e .",
    "npmrun": "npm run build",
    "yarn": "yarn build",
    "npx": "npx tsc --noEmit",
    "script": "./scripts/deploy.sh staging",
}

R, A = "refuse", "allow"

CASES: list[tuple[str, str, str]] = [
    # --- git push: refspecs and flags known to be one act -------------------------------
    ("push", "git push --force origin main", R),
    ("push", "git push origin main:main --force", R),
    ("push", "git push origin main:refs/heads/main -f", R),
    ("push", "git push --force origin refs/heads/main", R),
    ("push", "git push --force origin refs/heads/main:refs/heads/main", R),
    ("push", "git push -f origin main", R),
    ("push", "git push origin --force main", R),
    ("push", "git push origin +main:main", R),
    ("push", "git push origin +refs/heads/main:refs/heads/main", R),
    ("push", "git push origin +main:refs/heads/main", R),
    ("push", "git push --force --verbose origin main", R),
    ("push", "git push -fq origin main", R),
    ("push", "git push --force --no-progress origin main", R),
    ("push", "git --no-pager push --force origin main", R),
    ("push", "git -P push -f origin main", R),
    ("push", "git -C . push --force origin main", R),
    ("push", "git push --force origin main 2>&1 | tee push.log", R),
    ("push", "git push --force origin main || true", R),
    ("push", "set -euo pipefail; git push --force origin main", R),
    ("push", "timeout 120 git push --force origin main", R),
    # twins: another act, or one not knowable from the line
    ("push", "git push -f origin HEAD:main", A),  # HEAD: the current branch is not known
    ("push", "git push --force origin HEAD", A),
    ("push", "git push --force origin main:other", A),
    ("push", "git push --force origin other:main", A),
    ("push", "git push --force origin :main", A),  # deletes main
    ("push", "git push --force upstream main", A),
    ("push", "git push --force git@example.com:x/y.git main", A),
    ("push", "git push --force origin main dev", A),
    ("push", "git push --force", A),
    ("push", "git push --force --dry-run origin main", A),
    ("push", "git push -n -f origin main", A),
    ("push", "git push --force origin main --help", A),
    ("push", "git push --force-with-lease origin main", A),
    ("push", "git push --force --no-verify origin main", A),  # skips the pre-push hook
    ("push", "git push --force --tags origin main", A),
    ("push", "git -C other push --force origin main", A),  # another repository
    ("push", "git --git-dir=../other/.git push --force origin main", A),
    ("push", "GIT_DIR=../other/.git git push --force origin main", A),
    ("push", "git pull --force origin main", A),
    ("push", "echo git push --force origin main", A),
    # --- npm: options from the environment, aliases --------------------------------------
    ("npm", "npm install --legacy-peer-deps", R),
    ("npm", "npm_config_legacy_peer_deps=true npm install", R),  # npm reads npm_config_*
    ("npm", "NPM_CONFIG_LEGACY_PEER_DEPS=true npm install", R),  # case-insensitively
    ("npm", "export npm_config_legacy_peer_deps=true; npm install", R),
    ("npm", "env npm_config_legacy_peer_deps=true npm i", R),
    ("npm", "npm i --legacy-peer-deps", R),
    ("npm", "npm add --legacy-peer-deps", R),
    ("npm", "npm isntall --legacy-peer-deps", R),  # one of npm's own aliases of install
    ("npm", "npm install --legacy-peer-deps=true", R),
    ("npm", "npm --legacy-peer-deps install", R),
    ("npm", "npm install --legacy-peer-deps --silent", R),
    ("npm", "npm install --legacy-peer-deps --loglevel=error", R),
    ("npm", "npm install --legacy-peer-deps --no-fund", R),
    ("npm", "npm install --legacy-peer-deps 2>&1 | tail -50", R),
    ("npm", "npm_config_legacy_peer_deps=false npm install", A),
    ("npm", "npm_config_legacy_peer_deps=true npm install --legacy-peer-deps=false", A),
    ("npm", "npm ci --legacy-peer-deps", A),
    ("npm", "npm install --legacy-peer-deps lodash", A),
    ("npm", "npm install --force", A),
    ("npm", "npm install --legacy-peer-deps --dry-run", A),
    ("npm", "npm install", A),
    ("npm", "npm install --strict-peer-deps", A),
    ("npm", "pnpm install --legacy-peer-deps", A),
    ("npm", "cd web && npm install --legacy-peer-deps", A),  # another package
    ("npm", "cd /tmp && npm install --legacy-peer-deps", A),
    ("npm", "cd {root} && npm install --legacy-peer-deps 2>&1 | tail -50", R),
    # --- a row recorded in a subdirectory -------------------------------------------------
    ("npmweb", "cd web && npm install --legacy-peer-deps 2>&1 | tail -50", R),
    ("npmweb", "cd web/ && npm i --legacy-peer-deps", R),
    ("npmweb", "(cd web && npm install --legacy-peer-deps)", R),
    # relabelled after reading the matcher: if `cd web` fails, npm runs at the root
    ("npmweb", "cd web; npm install --legacy-peer-deps", A),
    ("npmweb", "pushd web && npm install --legacy-peer-deps && popd", R),
    ("npmweb", "cd {root}/web && npm install --legacy-peer-deps", R),
    ("npmweb", "npm install --legacy-peer-deps", A),  # at the root: another package
    ("npmweb", "cd api && npm install --legacy-peer-deps", A),
    ("npmweb", "cd web && npm install", A),
    # --- rm: the working directory --------------------------------------------------------
    ("rm", "rm -rf build", R),
    ("rm", "cd sub && cd .. && rm -rf build", R),
    ("rm", "cd . && rm -rf build", R),
    ("rm", "cd {root} && rm -rf build", R),
    ("rm", "rm -rf {root}/build", R),
    ("rm", "pushd sub && popd && rm -rf build", R),
    ("rm", "cd /tmp && rm -rf build", A),
    ("rm", "(cd sub && rm -rf build)", A),
    ("rm", "cd sub && rm -rf build", A),
    ("rm", "cd sub; rm -rf build", A),
    ("rm", "pushd sub && rm -rf build", A),
    ("rm", "cd - && rm -rf build", A),  # OLDPWD: not known
    ("rm", 'cd "$OLDPWD" && rm -rf build', A),
    ("rm", "cd && rm -rf build", A),  # $HOME
    ("rm", "cd ~ && rm -rf build", A),
    ("rm", "bash -c 'cd sub && rm -rf build'", A),
    ("rm", "rm -rf sub/../build", A),  # sub may be missing or a symlink
    # xargs with a static stdin: xargs appends the words it reads, so `echo build | xargs
    # rm -rf` runs exactly `rm -rf build` (once; -r and -n1 change nothing for one word).
    ("rm", "echo build | xargs rm -rf", R),
    ("rm", "printf 'build\\n' | xargs rm -rf", R),
    ("rm", "echo build | xargs -r rm -rf", R),
    ("rm", "echo build | xargs -n1 rm -rf", R),
    ("rm", "xargs rm -rf <<< build", R),
    ("rm", "xargs -I{} rm -rf {} <<< build", R),
    ("rm", 'echo "build" | xargs -I % rm -rf %', R),
    ("rm", "echo build2 | xargs rm -rf", A),
    ("rm", "echo build dist | xargs rm -rf", A),
    ("rm", "ls | xargs rm -rf", A),  # input not known
    ("rm", "xargs rm -rf < list.txt", A),
    ("rm", "xargs -a list.txt rm -rf", A),
    ("rm", "find . -name build -exec rm -rf {} +", A),  # paths not known
    ("rm", "find . -type d -name build -prune -exec rm -rf {} \\;", A),
    ("rm", "find . -maxdepth 0 -exec rm -rf build \\;", R),  # `.` only: runs it once
    ("rm", "find build -delete", A),
    # quoting and expansion
    ("rm", "r''m -rf build", R),
    ("rm", "\\rm -rf build", R),
    ("rm", "command rm -rf build", R),
    ("rm", "command -p rm -rf build", R),
    ("rm", "$'rm' -rf build", R),
    ("rm", '"rm" -rf "build"', R),
    ("rm", 'rm -rf bu"ild"', R),
    ("rm", "rm -rf 'build'", R),
    ("rm", "rm -rf {build,}", R),  # bash: `build` and an empty word, which is dropped
    ("rm", "rm -rf $(echo build)", R),
    ("rm", 'B=build; rm -rf "$B"', R),
    ("rm", "/bin/rm -rf build", R),
    ("rm", "/usr/bin/env rm -rf build", R),
    ("rm", "builtin rm -rf build", A),  # bash: "rm: not a shell builtin", runs nothing
    ("rm", "command -v rm -rf build", A),
    ("rm", "rm -rf {build,dist}", A),  # rm -rf build dist
    ("rm", "rm -rf buil?", A),  # glob: paths not known
    ("rm", "rm -rf build*", A),
    ("rm", 'rm -rf "build "', A),
    ("rm", 'B=build; rm -rf "$B"2', A),
    ("rm", "rm -rf ${B:-build}", A),
    # non-interactive bash expands no aliases; and an alias is never in effect on the
    # line that defines it: `r` is looked up as a program
    ("rm", "alias r=rm; r -rf build", A),
    ("rm", "f(){ rm -rf build; }; f", R),
    ("rm", "f() { rm -rf build; }", A),  # defined, never called: runs nothing
    # options
    ("rm", "rm -fr build", R),
    ("rm", "rm -Rf build", R),
    ("rm", "rm --recursive --force build", R),
    ("rm", "rm -f -R ./build", R),
    ("rm", "rm -rfv build", R),
    ("rm", "rm -rf -- build", R),
    ("rm", "rm -rf build && mkdir build", R),
    ("rm", "rm -rf build2", A),
    ("rm", "rm -rf ./build/cache", A),
    ("rm", "rm -rf build/*", A),
    ("rm", "rm -r build", A),
    ("rm", "rm --help", A),
    ("rm", "git clean -fdx build", A),
    # here-docs, here-strings, process substitution, pipes into shells
    ("rm", "bash <<'EOF'\nrm -rf build\nEOF", R),
    ("rm", "sh -s <<< 'rm -rf build'", R),
    ("rm", "bash -s -- x <<< 'rm -rf build'", R),
    ("rm", "source <(echo rm -rf build)", R),
    ("rm", "echo 'rm -rf build' | bash -x", R),
    ("rm", 'eval "$(echo rm -rf build)"', R),
    ("rm", "echo rm -rf build | tee /dev/stderr | sh", R),  # tee passes its input on
    ("rm", "echo 'rm -rf build' | bash -n", A),  # reads, runs nothing
    ("rm", "echo 'rm -rf build' | cat", A),
    ("rm", "echo 'rm -rf build' > clean.sh", A),
    ("rm", "cat <<'EOF'\nrm -rf build\nEOF", A),
    # wrappers
    ("rm", "nohup rm -rf build", R),
    ("rm", "nohup rm -rf build &", R),
    ("rm", "time rm -rf build", R),
    ("rm", "time -p rm -rf build", R),
    ("rm", "exec rm -rf build", R),
    ("rm", "exec -a cleaner rm -rf build", R),
    ("rm", "stdbuf -oL rm -rf build", R),
    ("rm", "stdbuf -o0 -e0 rm -rf build", R),
    ("rm", "ionice -c3 rm -rf build", R),
    ("rm", "ionice -c 3 rm -rf build", R),
    ("rm", "nice -n 10 rm -rf build", R),
    ("rm", "chronic rm -rf build", R),
    ("rm", "unbuffer rm -rf build", R),
    ("rm", "doas rm -rf build", R),
    ("rm", "doas -u root rm -rf build", R),
    ("rm", "sudo -- rm -rf build", R),
    ("rm", "sudo -E rm -rf build", R),
    ("rm", "sudo -H rm -rf build", R),
    ("rm", "sudo -i rm -rf build", A),  # a login shell: the target user's home
    ("rm", "sudo --login rm -rf build", A),
    ("rm", "su -c 'rm -rf build'", R),  # su keeps the directory
    ("rm", "su root -c 'rm -rf build'", R),
    ("rm", "su - -c 'rm -rf build'", A),  # a login shell: root's home
    ("rm", "su -l -c 'rm -rf build'", A),
    ("rm", "runuser -u root -- rm -rf build", R),
    ("rm", "runuser -l root -c 'rm -rf build'", A),  # login: another directory
    ("rm", "systemd-run --user --wait rm -rf build", A),  # runs in the manager's directory
    ("rm", "systemd-run --user --wait --same-dir rm -rf build", R),
    ("rm", "setsid -f rm -rf build", R),
    ("rm", "timeout -s KILL 10 rm -rf build", R),
    ("rm", "timeout --kill-after=5 60 rm -rf build", R),
    ("rm", "env -- rm -rf build", R),
    ("rm", "watch -n1 rm -rf build", R),
    ("rm", "flock /tmp/lock rm -rf build", R),
    ("rm", "script -qc 'rm -rf build' /dev/null", R),
    ("rm", "set -x; rm -rf build", R),
    ("rm", "docker exec ctr sh -c 'rm -rf build'", A),  # inside a container
    ("rm", "docker exec ctr rm -rf build", A),
    ("rm", "kubectl exec web-0 -- rm -rf build", A),
    ("rm", "ssh host 'rm -rf build'", A),  # another machine
    ("rm", "ssh host rm -rf build", A),
    # --- cargo ----------------------------------------------------------------------------
    ("cargo", "cargo build --release", R),
    ("cargo", "cargo build --profile release", R),
    ("cargo", "cargo build --profile=release", R),
    ("cargo", "cargo b -r", R),
    ("cargo", "cargo b --release", R),
    ("cargo", "cargo build -r", R),
    ("cargo", "cargo build --release --quiet", R),
    ("cargo", "cargo build --release -v", R),
    ("cargo", "cargo build --release -j 4", R),
    ("cargo", "cargo build --release --jobs=2", R),
    ("cargo", "cargo build --release --color never", R),
    ("cargo", "cargo build --release --message-format=short", R),
    ("cargo", "cargo build", A),
    ("cargo", "cargo build --profile dev", A),
    ("cargo", "cargo +stable build --release", A),  # another toolchain
    ("cargo", "cargo check --release", A),
    ("cargo", "cargo r --release", A),  # run
    ("cargo", "cargo build --release --target x86_64-unknown-linux-musl", A),
    ("cargo", "cargo build --release -p core", A),
    ("cargo", "cargo build --release --locked", A),
    ("cargo", "CARGO_PROFILE_RELEASE_LTO=true cargo build --release", A),
    ("cargo", "RUSTFLAGS=-Ctarget-cpu=native cargo build --release", A),
    ("cargo", "cargo build --release --help", A),
    # --- docker ---------------------------------------------------------------------------
    ("docker", "docker build -t app .", R),
    ("docker", "docker build --tag app .", R),
    ("docker", "docker build --tag=app .", R),
    ("docker", "docker build . -t app", R),
    ("docker", "docker image build -t app .", R),
    ("docker", "docker build -t app:latest .", R),  # an untagged name is :latest
    ("docker", "docker build -q -t app .", R),
    ("docker", "docker build --progress=plain -t app .", R),
    ("docker", "docker build --no-cache -t app .", A),
    ("docker", "docker build -t app -f Dockerfile.dev .", A),
    ("docker", "docker build -t app2 .", A),
    ("docker", "docker build -t app:dev .", A),
    ("docker", "docker build -t app ..", A),
    ("docker", "docker build -t app --pull .", A),
    ("docker", "DOCKER_BUILDKIT=0 docker build -t app .", A),  # the legacy builder
    ("docker", "docker --context remote build -t app .", A),  # another daemon
    ("docker", "docker -H ssh://ci build -t app .", A),
    # --- kubectl --------------------------------------------------------------------------
    ("kube", "kubectl delete pod web-0 --force --grace-period=0", R),
    ("kube", "kubectl delete pod web-0 --grace-period=0 --force", R),
    ("kube", "kubectl delete --force --grace-period 0 pod web-0", R),
    ("kube", "kubectl delete po web-0 --force --grace-period=0", R),
    ("kube", "kubectl delete pods/web-0 --grace-period=0 --force", R),
    ("kube", "kubectl delete pod/web-0 --force --grace-period=0", R),
    ("kube", "kubectl delete pod web-0 --force --grace-period=0 -v=6", R),
    ("kube", "kubectl delete pod web-1 --force --grace-period=0", A),
    ("kube", "kubectl delete pod web-0", A),
    ("kube", "kubectl delete pod web-0 --now", A),
    ("kube", "kubectl -n prod delete pod web-0 --force --grace-period=0", A),
    ("kube", "kubectl --context staging delete pod web-0 --force --grace-period=0", A),
    ("kube", "kubectl delete pod web-0 --force --grace-period=0 --dry-run=client", A),
    ("kube", "kubectl delete deploy web-0 --force --grace-period=0", A),
    # --- terraform ------------------------------------------------------------------------
    ("tf", "terraform apply -auto-approve", R),
    ("tf", "terraform apply --auto-approve", R),
    ("tf", "terraform apply -auto-approve=true", R),
    ("tf", "terraform apply -auto-approve -no-color", R),
    ("tf", "TF_CLI_ARGS_apply=-auto-approve terraform apply", R),  # terraform reads it
    ("tf", "TF_LOG=DEBUG terraform apply -auto-approve", R),  # logging only
    ("tf", "terraform -chdir=infra apply -auto-approve", A),
    ("tf", "terraform plan", A),
    ("tf", "terraform apply", A),
    ("tf", "terraform apply -auto-approve -target=aws_instance.web", A),
    ("tf", "terraform apply -auto-approve plan.tfplan", A),
    ("tf", "terraform apply -auto-approve -refresh=false", A),
    ("tf", "terraform apply -auto-approve -lock=false", A),
    ("tf", "terraform destroy -auto-approve", A),
    # --- pytest ---------------------------------------------------------------------------
    ("pytest", "pytest -x tests/test_api.py", R),
    ("pytest", "pytest --exitfirst tests/test_api.py", R),
    ("pytest", "pytest --maxfail=1 tests/test_api.py", R),  # -x is --maxfail=1
    ("pytest", "python -m pytest -x tests/test_api.py", R),
    ("pytest", "py.test -x tests/test_api.py", R),
    ("pytest", "pytest tests/test_api.py -x -q", R),
    ("pytest", "pytest -xq tests/test_api.py", R),
    ("pytest", "pytest -x ./tests/test_api.py", R),
    ("pytest", "pytest -x tests/test_api.py --tb=short", R),
    ("pytest", "pytest -x tests/test_api.py -rA", R),
    ("pytest", "PYTEST_ADDOPTS=-x pytest tests/test_api.py", R),
    ("pytest", "timeout 600 pytest -x tests/test_api.py 2>&1 | tail -30", R),
    ("pytest", "pytest -x tests/test_api.py::test_login", A),
    ("pytest", "pytest tests/test_api.py", A),
    ("pytest", "pytest -x tests/", A),
    ("pytest", "pytest -x --collect-only tests/test_api.py", A),
    ("pytest", "pytest -x --co tests/test_api.py", A),
    ("pytest", "pytest -x -k login tests/test_api.py", A),
    ("pytest", "pytest -x tests/test_api.py --lf", A),
    ("pytest", "pytest -x tests/test_api.py -p no:cacheprovider", A),
    ("pytest", "pytest --maxfail=2 tests/test_api.py", A),
    ("pytest", "uv run pytest -x tests/test_api.py", A),  # runner: kept (docs)
    ("pytest", "poetry run pytest -x tests/test_api.py", A),
    ("pytest", "pytest -x tests/test_api.py --help", A),
    # --- make -C --------------------------------------------------------------------------
    ("make", "make -C web deploy", R),
    ("make", "cd web && make deploy", R),
    ("make", "(cd web && make deploy)", R),
    ("make", "make --directory=web deploy", R),
    ("make", "make --directory web deploy", R),
    ("make", "make -C web/ deploy", R),
    ("make", "make -Cweb deploy", R),
    ("make", "make deploy -C web", R),
    ("make", "make -C web -j8 deploy", R),
    ("make", "make -C web -s deploy", R),
    ("make", "make -C web --no-print-directory deploy", R),
    ("make", "gmake -C web deploy", R),
    ("make", "make -C web -n deploy", A),
    ("make", "make -C web --dry-run deploy", A),
    ("make", "make -C web --just-print deploy", A),
    ("make", "make -C web deploy -n", A),
    ("make", "MAKEFLAGS=-n make -C web deploy", A),  # make reads MAKEFLAGS: a dry run
    ("make", "make -C api deploy", A),
    ("make", "make deploy", A),
    ("make", "make -C web deploy ENV=prod", A),
    ("make", "make -f web/Makefile deploy", A),  # runs at the root
    ("make", "cd api && make deploy", A),
    ("make", "make -C web deploy-fast", A),
    # --- go -------------------------------------------------------------------------------
    ("go", "go test -tags=musl ./...", R),
    ("go", 'GOFLAGS="-tags=musl -v" go test ./...', R),
    ("go", "env GOFLAGS=-tags=musl go test ./...", R),
    ("go", "export GOFLAGS=-tags=musl && go test ./...", R),
    ("go", "go test -tags musl ./...", R),
    ("go", "go test -tags='musl' ./...", R),
    ("go", "go test -tags=musl ./... -v", R),
    ("go", "go test -tags=musl -json ./...", R),
    ("go", "GOFLAGS=-mod=mod go test -tags=musl ./...", A),
    ("go", "GOFLAGS=-tags=musl go test -tags=netgo ./...", A),  # the command line wins
    ("go", "go test -tags=musl,netgo ./...", A),
    ("go", "go test -tags=musl -run TestX ./...", A),
    ("go", "go test -tags=musl -race ./...", A),
    ("go", "go test -tags=musl -short ./...", A),
    ("go", "go test -tags=musl -vet=off ./...", A),
    ("go", "go vet -tags=musl ./...", A),
    ("go", "CGO_ENABLED=0 go test -tags=musl ./...", A),
    ("go", "GOTOOLCHAIN=go1.21.0 go test -tags=musl ./...", A),
    ("go", "go1.22.0 test -tags=musl ./...", A),
    # --- pip ------------------------------------------------------------------------------
    ("pip", "pip install -e .", R),
    ("pip", "pip install --editable=.", R),
    ("pip", "pip install -e ./", R),  # an editable is always a path or URL: `.` = `./`
    ("pip", "python3 -m pip install -e .", R),
    ("pip", "pip3 install -e .", R),
    ("pip", "pip install -e . --quiet", R),
    ("pip", "pip install -e . --progress-bar off", R),
    ("pip", "pip install -e . --disable-pip-version-check", R),
    ("pip", "python -m pip install -e . 2>&1 | tail -5", R),
    ("pip", "pip install -e .[dev]", A),
    ("pip", "pip install -e . --no-deps", A),
    ("pip", "PIP_NO_DEPS=1 pip install -e .", A),
    ("pip", "pip install .", A),
    ("pip", "pip install -e . --user", A),
    ("pip", "pip install -e . --dry-run", A),
    ("pip", "pip install -e ..", A),
    ("pip", "uv pip install -e .", A),  # another installer
    # --- npm run / yarn / npx -------------------------------------------------------------
    ("npmrun", "npm run build", R),
    ("npmrun", "npm run-script build", R),
    ("npmrun", "npm run build --silent", R),
    ("npmrun", "npm run-script build -s", R),
    ("npmrun", "npm_config_loglevel=silent npm run build", R),
    ("npmrun", "npm run build -- --watch", A),
    ("npmrun", "npm run build --workspace=web", A),
    ("npmrun", "npm run test", A),
    ("npmrun", "yarn run build", A),  # another package manager
    ("yarn", "yarn build", R),
    ("yarn", "yarn run build", R),  # `yarn SCRIPT` is `yarn run SCRIPT`
    ("yarn", "yarn build --watch", A),
    ("yarn", "yarn run build --watch", A),
    ("yarn", "yarn install", A),
    ("npx", "npx tsc --noEmit", R),
    ("npx", "npx -y tsc --noEmit", R),
    ("npx", "npx --yes tsc --noEmit", R),
    ("npx", "npx tsc --noEmit --watch", A),
    ("npx", "npx tsc", A),
    # --- a script of the project ----------------------------------------------------------
    ("script", "./scripts/deploy.sh staging", R),
    ("script", "scripts/deploy.sh staging", R),
    ("script", "{root}/scripts/deploy.sh staging", R),
    ("script", "sh -c './scripts/deploy.sh staging'", R),
    ("script", "./scripts/deploy.sh production", A),
    ("script", "./scripts/deploy.sh staging --dry-run", A),
    ("script", "cd scripts && ./deploy.sh staging", A),  # runs in another directory
]

_REPOS: dict[str, Path] = {}


def _row_repo(key: str, factory: pytest.TempPathFactory) -> Path:
    """A real git repository whose failure ledger holds the one row ``key`` (cached)."""
    if key not in _REPOS:
        from rehydrate.config import load_config
        from rehydrate.git import find_repo
        from rehydrate.writers.scaffold import init_repo

        repo = factory.mktemp(f"holdout2-{key}")
        git(repo, "init", "-q")
        init_repo(find_repo(repo), load_config(repo))
        added = run(
            repo, "fail", "add", "--tried", f"`{ROWS[key]}`", "--failure", "it broke the build",
            "--workaround", "run the documented command instead",
        )  # fmt: skip
        assert added.code == 0, added.err
        _REPOS[key] = repo
    return _REPOS[key]


def _ids() -> list[str]:
    return [f"{key}:{command.replace(chr(10), '⏎')}" for key, command, _ in CASES]


def test_the_hold_out_is_big_enough() -> None:
    assert len(CASES) >= 200
    assert len({(k, c) for k, c, _ in CASES}) == len(CASES)


@pytest.mark.parametrize(("key", "command", "expected"), CASES, ids=_ids())
def test_holdout2(
    key: str, command: str, expected: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    repo = _row_repo(key, tmp_path_factory)
    result = run(repo, "check-command", "--json", "--", command.replace("{root}", str(repo)))
    assert result.code in (0, 1), result.err
    verdict = json.loads(result.out)
    got = "refuse" if result.code == 1 else "allow"
    assert got == expected, f"row `{ROWS[key]}`: {command!r} -> {got}: {verdict}"
