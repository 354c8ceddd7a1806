"""A labelled corpus of (failure row, command) pairs for the command check, and its figures.

Each row of ``CORPUS`` is a recorded attempt (a Tried cell) and the commands an agent
might run next, each labelled by hand with what it *runs*, not how it is spelled:

* ``R`` (refuse): the same invocation as the attempt (an equivalent spelling, a wrapper,
  a shell that is handed it, a cosmetic option more): a refusal is right;
* ``A`` (allow): a different invocation (another positional argument, option, value or
  environment; the workaround; data that only mentions it): a refusal is wrong.

Kinds: ``match`` (the attempt as written), ``spelling`` (an equivalent form),
``near`` (a near miss that must be allowed), ``transcript`` (commands as agents write
them in real sessions: ``cd``, pipes into ``tail``, ``2>&1``, ``&&`` chains).

``python benchmarks/command_corpus.py`` prints precision and recall (the figures
published in docs/check-command.md); ``tests/test_command_corpus.py`` keeps them:
precision 1.0, recall at least ``PUBLISHED_RECALL``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

PUBLISHED_RECALL = 1.00  # docs/check-command.md; the regression test keeps at least this


class Pair(NamedTuple):
    tried: str
    command: str
    label: str  # "R" | "A"
    kind: str  # "match" | "spelling" | "near" | "transcript"


R, A = "R", "A"
M, S, N, T = "match", "spelling", "near", "transcript"

CORPUS: list[tuple[str, list[tuple[str, str, str]]]] = [
    (
        "`go test -tags=musl ./...`",
        [
            ("go test -tags=musl ./...", R, M),
            ("go test -tags musl ./...", R, S),
            ("go test --tags=musl ./...", R, S),
            ("go test --tags musl ./...", R, S),
            ("go test -v -count=1 -tags=musl ./...", R, S),
            ("go test ./... -tags=musl", R, S),
            ("go te\\\nst -tags=musl ./...", R, S),
            ("echo go test -tags=musl ./... | sh", R, S),
            ("printf '%s\\n' 'go test -tags=musl ./...' | sh", R, S),
            ("env -S'go test -tags=musl ./...'", R, S),
            ("env --split-string='go test -tags=musl ./...'", R, S),
            ("eval -- 'go test -tags=musl ./...'", R, S),
            ("sudo -Eu root go test -tags=musl ./...", R, S),
            ("T=musl; go test -tags=$T ./...", R, S),
            ("$HOME/sdk/go/bin/go test -tags=musl ./...", R, S),
            ("/usr/local/go/bin/go test -tags=musl ./...", R, S),
            ("strace -f go test -tags=musl ./...", R, S),
            ("flock /tmp/go.lock go test -tags=musl ./...", R, S),
            ("watch -n1 'go test -tags=musl ./...'", R, S),
            ("script -qc 'go test -tags=musl ./...' /dev/null", R, S),
            ("busybox sh -c 'go test -tags=musl ./...'", R, S),
            ("python3 -c \"import os; os.system('go test -tags=musl ./...')\"", R, S),
            ("trap 'go test -tags=musl ./...' EXIT", R, S),
            ("coproc go test -tags=musl ./...", R, S),
            ("bash <(echo 'go test -tags=musl ./...')", R, S),
            ("bash -c 'go test -tags=musl ./...'", R, S),
            ("time go test -tags=musl ./...", R, S),
            ("nice -n 10 go test -tags=musl ./...", R, S),
            ("go test -tags=darwin_arm64 ./...", A, N),
            ("go test ./...", A, N),
            ("go test -tags=musl ./internal/crypto", A, N),
            ("go build -tags=musl ./...", A, N),
            ("go vet -tags=musl ./...", A, N),
            ("CGO_ENABLED=0 go test -tags=musl ./...", A, N),
            ("echo 'go test -tags=musl ./...'", A, N),
            ("T=darwin; go test -tags=$T ./...", A, N),
            (
                "cd svc && go test -tags=musl ./... 2>&1 | tail -30",
                A,
                T,
            ),  # another directory: the row ran at the root
            ("go test -tags=musl ./... 2>&1 | head -100", R, T),
            ("go test -tags=musl -run TestLinker ./...", A, T),
            ("go test -race ./... 2>&1 | tail -5", A, T),
        ],
    ),
    (
        "`git push --force origin main`",
        [
            ("git push --force origin main", R, M),
            ("git push origin main --force", R, S),
            ("GIT_TERMINAL_PROMPT=0 git push -f origin main", R, S),  # only the prompt
            ("git push -f origin main", R, S),
            ("git push origin --force main", R, S),
            ("git push -v --force origin main", R, S),
            ("git push --force origin my-feature", A, N),
            ("git push origin main", A, N),
            ("git push --force-with-lease origin main", A, N),
            ("git push --force upstream main", A, N),
            ("git push -u origin main", A, N),
            ("git pull --force origin main", A, N),
            ("git status && git push origin main --force", R, T),
            ("git push --force origin HEAD:refs/heads/fix", A, T),
            ("git log --oneline -5 && git push origin feature/x", A, T),
        ],
    ),
    (
        "`pip install -e .`",
        [
            ("pip install -e .", R, M),
            ("pip install -q -e .", R, S),
            ("PIP_DISABLE_PIP_VERSION_CHECK=1 pip install -e .", R, S),  # pip reads PIP_*
            ("PIP_NO_CACHE_DIR=1 pip install -e .", A, N),  # --no-cache-dir: not cosmetic
            ("pip install --editable .", R, S),
            ("pip install --editable=.", R, S),
            ("python -m pip install -e .", R, S),
            ("python3 -m pip install -e .", R, S),
            ("pip3 install -e .", R, S),
            ("pip install -e . --disable-pip-version-check", R, S),
            ("pip install -e '.[test]'", A, N),
            ("pip install -e ./other", A, N),
            ("pip install .", A, N),
            ("pip install -e . --no-build-isolation", A, N),
            ("pip uninstall -e .", A, N),
            ("python -m venv .venv && .venv/bin/pip install -e .", R, T),
            ("pip install -e . 2>&1 | tail -3", R, T),
            ("pip install -r requirements.txt", A, T),
        ],
    ),
    (
        "`make deploy-fast`",
        [
            ("make deploy-fast", R, M),
            ("make -j4 deploy-fast", R, S),
            ("make -j 4 deploy-fast", R, S),
            ("make --jobs=8 deploy-fast", R, S),
            ("make -s deploy-fast", R, S),
            ("make deploy", A, N),
            ("make deploy-fast DRY=1", A, N),
            ("make -n deploy-fast", A, N),
            ("make -C web deploy-fast", A, N),
            ("make test", A, N),
            ("make build && make deploy-fast", R, T),
            ("make deploy-fast 2>&1 | tee deploy.log", R, T),
            ("make -j $(nproc) deploy-fast", R, T),  # what nproc prints: a number
            ('make -j "$(nproc)" deploy-fast', R, T),
            ("make -j $((4 * 2)) deploy-fast", R, S),
            ("make -j $N deploy-fast", A, N),  # $N may be a target
        ],
    ),
    (
        "`rm -rf build`",
        [
            ("rm -rf build", R, M),
            ("rm -fr build", R, S),
            ("parallel rm -rf ::: build", R, S),
            ("parallel -j4 --will-cite 'rm -rf {}' ::: build", R, S),
            ("parallel ::: 'rm -rf build' 'make clean'", R, S),
            ("parallel rm -rf ::: dist out", A, N),
            ("parallel --dry-run rm -rf ::: build", A, N),
            ("rm -r -f build", R, S),
            ("rm -Rf build", R, S),
            ("rm --recursive --force build", R, S),
            ("rm -rfv build", R, S),
            ("rm --recursive --force=true build", A, N),  # rm: "doesn't allow an argument"
            ("rm -rf dist", A, N),
            ("rm -r build", A, N),
            ("rm -rf build/cache", A, N),
            ("rm -rf build dist", A, N),
            ("ls build && rm -rf build", R, T),
            # what a word expands to: $'…' escapes, an unquoted expansion's fields,
            # `which`/`command -v` as the program, $(pwd)
            ("rm -rf $'\\x62uild'", R, S),
            ("rm -rf $'\\142uild'", R, S),
            ("rm -rf $'\\x62uil\\q'", A, N),
            ("CMD='rm -rf build'; $CMD", R, S),
            ("CMD='rm -rf build'; \"$CMD\"", A, N),
            ("IFS=,; x=rm,-rf,build; $x", R, S),
            ('"$(which rm)" -rf build', R, S),
            ('"$(command -v rm)" -rf build', R, S),
            ('"$(command -v rmdir)" -rf build', A, N),
            ('rm -rf "$(pwd)/build"', R, S),
            ('rm -rf "$(pwd)/build/cache"', A, N),
            # a script the line writes, then runs; /dev/stdin as the script
            ("cat > s.sh <<'EOF'\nrm -rf build\nEOF\nbash s.sh", R, S),
            ("printf 'rm -rf build\\n' > s.sh && sh ./s.sh", R, S),
            ("echo 'rm -rf build' > s.sh; chmod +x s.sh; ./s.sh", R, S),
            ("cat > s.sh <<'EOF'\nrm -rf build\nEOF\ncat s.sh", A, N),
            ("echo 'rm -rf build' >> s.sh; sh s.sh", A, N),
            ("echo 'rm -rf build' > s.sh; cp safe.sh s.sh; sh s.sh", A, N),
            ("echo 'rm -rf build' > s.sh; bash < s.sh", R, S),
            ("echo build > list; xargs rm -rf < list", R, S),
            ("echo dist > list; xargs rm -rf < list", A, N),
            ("source /dev/stdin <<< 'rm -rf build'", R, S),
            ("echo 'rm -rf build' | bash /dev/fd/0", R, S),
            ("echo 'rm -rf build' | bash ci.sh", A, N),
            ("echo 'rm -rf build' | xargs -I{} sh -c '{}'", R, S),
            ("echo 'rm -rf build' | xargs -I{} echo '{}'", A, N),
            # a redirection after a list is its last command's (the grammar's is the list's)
            ("cd . && bash <<'EOF'\nrm -rf build\nEOF", R, T),
            ("cd . && cat <<'EOF'\nrm -rf build\nEOF", A, N),
            ("make || sh < <(echo rm -rf build)", R, S),
            # arrays, the positional parameters, appended values
            ('x=(rm -rf build); "${x[@]}"', R, S),
            ('x=(rm -rf build); "${x[*]}"', A, N),
            ('x=(rm -rf build); x+=(dist); "${x[@]}"', A, N),
            ('set -- rm -rf build; "$@"', R, S),
            ('set -- rm -rf build; shift; "$@"', A, N),
            # an item holding the list's own separator: one word, a program of that name
            ("set -- $'rm\\x1f-rf\\x1fbuild'; \"$@\"", A, N),
            ("run() { \"$@\"; }; run $'rm\\x1f-rf\\x1fbuild'", A, N),
            ("T=bui; T+=ld; rm -rf $T", R, S),
            ("T=build; T+=2; rm -rf $T", A, N),
            # a loop over plain words; what the shell expands before it feeds a shell
            ("for d in build; do rm -rf $d; done", R, S),
            ("for d in build dist; do rm -rf $d; done", R, S),
            ("for d in build; do break; rm -rf $d; done", A, N),
            ("x='rm -rf build'; sh <<< \"$x\"", R, S),
            ("x='rm -rf build'; sh <<< '$x'", A, N),
            ("export x='rm -rf build'; sh <<< '$x'", R, S),
            ("x='rm -rf build'; echo \"$x\" | bash", R, S),
            ("coproc C { rm -rf build; }", R, S),
            ("script -q /dev/null -c 'rm -rf build'", R, S),
            ("echo cm0gLXJmIGJ1aWxk | base64 -d | sh", R, S),
            ("echo cm0gLXJmIGJ1aWxk | base64 -d", A, N),
            ("bash <(cat <<'EOF'\nrm -rf build\nEOF\n)", R, S),
            ("awk 'BEGIN { system(\"rm -rf build\") }'", R, S),
            ("awk '{ system(\"rm -rf build\") }' list.txt", A, N),
            ("python3 - <<'EOF'\nimport shutil, os\nos.system('rm -rf build')\nEOF", R, T),
            ("python3 - <<'EOF'\nimport shutil\nshutil.rmtree('build')\nEOF", A, N),
            ("python3 -c \"import subprocess as sp; sp.run(['rm', '-rf', 'build'])\"", R, S),
            ("python3 -c \"import os; os.execlp('rm', 'rm', '-rf', 'build')\"", R, S),
            ("$SHELL -c 'rm -rf build'", R, S),
            # what never runs
            ("false && rm -rf build", A, N),
            ("true || rm -rf build", A, N),
            ("if false; then rm -rf build; fi", A, N),
            ("exit 0; rm -rf build", A, N),
            ("make || exit 1; rm -rf build", R, T),
        ],
    ),
    (
        "`CGO_ENABLED=0 go build ./...`",
        [
            ("CGO_ENABLED=0 go build ./...", R, M),
            ("env CGO_ENABLED=0 go build ./...", R, S),
            ("export CGO_ENABLED=0; go build ./...", R, S),
            ("export CGO_ENABLED=0 && go build ./...", R, S),
            ("CGO_ENABLED=0 go build -v ./...", R, S),
            ("NO_COLOR=1 CGO_ENABLED=0 go build ./...", R, S),
            ("go build ./...", A, N),
            ("CGO_ENABLED=1 go build ./...", A, N),
            ("CGO_ENABLED=0 go build ./cmd/server", A, N),
            ("CGO_ENABLED=0 GOOS=linux go build ./...", A, N),
            ("CGO_ENABLED=0 go vet ./...", A, N),
            (
                "cd cmd && CGO_ENABLED=0 go build ./... 2>&1 | tail",
                A,
                T,
            ),  # another directory: the row ran at the root
        ],
    ),
    (
        "`npm install --legacy-peer-deps`",
        [
            ("npm install --legacy-peer-deps", R, M),
            ("npm i --legacy-peer-deps", R, S),
            ("npm install --legacy-peer-deps --silent", R, S),
            ("npm install --no-fund --no-audit --legacy-peer-deps", R, S),
            ("npm install", A, N),
            ("npm ci --legacy-peer-deps", A, N),
            ("npm install --force", A, N),
            ("npm install react --legacy-peer-deps", A, N),
            (
                "cd web && npm install --legacy-peer-deps 2>&1 | tail -20",
                A,
                T,
            ),  # another directory: the row ran at the root
            ("npm install --legacy-peer-deps && npm run build", R, T),
        ],
    ),
    (
        "`npm run build`",
        [
            ("npm run build", R, M),
            ("npm run-script build", R, S),
            ("npm run build --silent", R, S),
            ("npm run build:prod", A, N),
            ("npm run test", A, N),
            ("npm run build -- --watch", A, N),
            ("yarn build", A, N),
            ("npm run lint && npm run build", R, T),
            ("npm run build 2>&1 | head -50", R, T),
        ],
    ),
    (
        "`npm test`",
        [
            ("npm test", R, M),
            ("npm t", R, S),
            ("npm run test", R, S),
            ("npm test --silent", R, S),
            ("npm test -- --watch", A, N),
            ("npm test -- -t parser", A, N),
            ("npm run test:unit", A, N),
        ],
    ),
    (
        "`cargo build --release --target x86_64-unknown-linux-musl`",
        [
            ("cargo build --release --target x86_64-unknown-linux-musl", R, M),
            ("cargo build --target x86_64-unknown-linux-musl --release", R, S),
            ("cargo build -r --target=x86_64-unknown-linux-musl", R, S),
            ("cargo build --release --target x86_64-unknown-linux-musl -v", R, S),
            ("cargo build --release --target x86_64-unknown-linux-musl -j 2", R, S),
            ("cargo build --release --target aarch64-unknown-linux-musl", A, N),
            ("cargo build --release", A, N),
            ("cargo build --target x86_64-unknown-linux-musl", A, N),
            ("cargo +nightly build --release --target x86_64-unknown-linux-musl", A, N),
            ("cargo test --release --target x86_64-unknown-linux-musl", A, N),
            ("cargo build --release --target x86_64-unknown-linux-musl 2>&1 | tail -40", R, T),
        ],
    ),
    (
        "`docker build -t app:dev .`",
        [
            ("docker build -t app:dev .", R, M),
            ("docker build --tag app:dev .", R, S),
            ("docker build --tag=app:dev .", R, S),
            ("docker build . -t app:dev", R, S),
            ("docker build -q -t app:dev .", R, S),
            ("sudo docker build -t app:dev .", R, S),
            ("docker build -t app:dev -f Dockerfile.alpine .", A, N),
            ("docker build -t app:prod .", A, N),
            ("docker build --no-cache -t app:dev .", A, N),
            ("docker build -t app:dev ./svc", A, N),
            ("docker build -t app:dev ./", R, S),
            ("docker build -t app:dev ./.", R, S),
            ("docker image build -t app:dev .", R, S),
            ("docker build -t app:dev svc/..", A, N),  # a path through svc: as written
            ("docker build -t app:dev -", A, N),
            ("docker run -t app:dev .", A, N),
            ("docker build -t app:dev . 2>&1 | tail -30", R, T),
        ],
    ),
    (
        "`docker compose up -d db`",
        [
            ("docker compose up -d db", R, M),
            ("docker compose up --detach db", R, S),
            ("docker compose up --detach=true db", R, S),
            ("docker compose up db -d", R, S),
            ("docker compose up -d web", A, N),
            ("docker compose up db", A, N),
            ("docker compose down -d db", A, N),
            ("docker compose up -d --build db", A, N),
            ("docker-compose up -d db", R, S),
            ("/usr/local/bin/docker-compose up --detach db", R, S),
            ("docker-compose up -d web", A, N),
            ("docker-compose down", A, N),
        ],
    ),
    (
        "`docker-compose up --build`",
        [
            ("docker compose up --build", R, S),
            ("docker-compose up --build", R, M),
            ("docker compose up", A, N),
        ],
    ),
    (
        "`kubectl -n prod apply -f k8s/`",
        [
            ("kubectl -n prod apply -f k8s/", R, M),
            ("kubectl apply -n prod -f k8s/", R, S),
            ("kubectl apply --namespace=prod --filename k8s/", R, S),
            ("kubectl apply -f k8s/ --namespace prod", R, S),
            ("kubectl -n staging apply -f k8s/", A, N),
            ("kubectl -n prod apply -f k8s/base", A, N),
            ("kubectl -n prod delete -f k8s/", A, N),
            ("kubectl -n prod apply -f k8s/ --dry-run=client", A, N),
            ("kubectl -n prod diff -f k8s/", A, N),
        ],
    ),
    (
        "`kubectl rollout restart deployment/api`",
        [
            ("kubectl rollout restart deployment/api", R, M),
            ("kubectl rollout restart deployment/api -v 5", R, S),
            ("kubectl rollout status deployment/api", A, N),
            ("kubectl rollout restart deployment/web", A, N),
        ],
    ),
    (
        "`pytest -x tests/test_api.py`",
        [
            ("pytest -x tests/test_api.py", R, M),
            ("pytest tests/test_api.py -x", R, S),
            ("pytest --exitfirst tests/test_api.py", R, S),
            ("python -m pytest -x tests/test_api.py", R, S),
            ("python3 -m pytest -x -q tests/test_api.py", R, S),
            ("pytest -x -vv tests/test_api.py", R, S),
            ("py.test -x tests/test_api.py", R, S),
            ("pytest -x tests/test_db.py", A, N),
            ("pytest tests/test_api.py", A, N),
            ("pytest -x -k login tests/test_api.py", A, N),
            ("pytest -x tests/test_api.py::test_login", A, N),
            (
                "cd backend && python -m pytest -x tests/test_api.py 2>&1 | tail -20",
                A,
                T,
            ),  # another directory: the row ran at the root
            ("python -m pytest -q 2>&1 | tail -20", A, T),
        ],
    ),
    (
        "`terraform apply -auto-approve`",
        [
            ("terraform apply -auto-approve", R, M),
            ("terraform apply --auto-approve", R, S),
            ("terraform apply -auto-approve -no-color", R, S),
            ("terraform apply", A, N),
            ("terraform plan -auto-approve", A, N),
            ("terraform apply -auto-approve -target=module.db", A, N),
            ("terraform apply -auto-approve -var env=prod", A, N),
            ("terraform -chdir=infra apply -auto-approve", A, N),
            ("terraform init && terraform apply -auto-approve", R, T),
        ],
    ),
    (
        "`terraform state rm aws_instance.web`",
        [
            ("terraform state rm aws_instance.web", R, M),
            ("terraform state rm aws_instance.db", A, N),
            ("terraform state list aws_instance.web", A, N),
        ],
    ),
    (
        "`git reset --hard HEAD~1`",
        [
            ("git reset --hard HEAD~1", R, M),
            ("git reset HEAD~1 --hard", R, S),
            ("git -c core.pager=cat reset --hard HEAD~1", R, S),
            ("git reset --soft HEAD~1", A, N),
            ("git reset --hard HEAD~2", A, N),
            ("git reset --hard origin/main", A, N),
            ("git stash && git reset --hard HEAD~1", R, T),
        ],
    ),
    (
        "`git commit -am 'wip'`",
        [
            ("git commit -am 'wip'", R, M),
            ("git commit -a -m wip", R, S),
            ("git commit --all --message=wip", R, S),
            ("git commit -q -am wip", R, S),
            ("git commit -am 'fix: parser'", A, N),
            ("git commit -m wip", A, N),
            ("git commit -am wip --no-verify", A, N),
            ("git add -A && git commit -am wip", R, T),
        ],
    ),
    (
        "`git stash pop`",
        [
            ("git stash pop", R, M),
            ("git stash pop -q", R, S),
            ("git stash drop", A, N),
            ("git stash pop stash@{1}", A, N),
            ("git stash", A, N),
        ],
    ),
    (
        "`yarn add left-pad --dev`",
        [
            ("yarn add left-pad --dev", R, M),
            ("yarn add -D left-pad", R, S),
            ("yarn add --dev left-pad --silent", R, S),
            ("yarn add left-pad", A, N),
            ("yarn add right-pad --dev", A, N),
            ("yarn remove left-pad", A, N),
        ],
    ),
    (
        "`pnpm install --frozen-lockfile`",
        [
            ("pnpm install --frozen-lockfile", R, M),
            ("pnpm i --frozen-lockfile", R, S),
            ("pnpm install --frozen-lockfile --reporter=silent", R, S),
            ("pnpm install", A, N),
            ("pnpm install --no-frozen-lockfile", A, N),
            ("pnpm -r install --frozen-lockfile", A, N),
        ],
    ),
    (
        "`npx prisma migrate deploy`",
        [
            ("npx prisma migrate deploy", R, M),
            ("npx --yes prisma migrate deploy", R, S),
            ("prisma migrate deploy", R, S),
            ("npx prisma migrate dev", A, N),
            ("npx prisma migrate reset", A, N),
        ],
    ),
    (
        "`curl -X POST https://api.local/v1/charge -H 'Idempotency-Key: abc'`",
        [
            ("curl -X POST https://api.local/v1/charge -H 'Idempotency-Key: abc'", R, M),
            ("curl -H 'Idempotency-Key: abc' -X POST https://api.local/v1/charge", R, S),
            ("curl -s -X POST https://api.local/v1/charge -H 'Idempotency-Key: abc'", R, S),
            ("curl -X POST https://api.local/v1/refund -H 'Idempotency-Key: abc'", A, N),
            ("curl -X GET https://api.local/v1/charge -H 'Idempotency-Key: abc'", A, N),
            ("curl -X POST https://api.local/v1/charge -H 'Idempotency-Key: xyz'", A, N),
        ],
    ),
    (
        "`./scripts/migrate.sh --all`",
        [
            ("./scripts/migrate.sh --all", R, M),
            ("scripts/migrate.sh --all", R, S),
            ("bash -c './scripts/migrate.sh --all'", R, S),
            ("./scripts/migrate.sh --one users", A, N),
            ("./scripts/migrate.sh", A, N),
            ("cat ./scripts/migrate.sh", A, N),
        ],
    ),
    (
        "`go mod tidy -go=1.21`",
        [
            ("go mod tidy -go=1.21", R, M),
            ("go mod tidy --go=1.21", R, S),
            ("go mod tidy -go 1.21", R, S),
            ("go mod tidy -v -go=1.21", R, S),
            ("go mod tidy", A, N),
            ("go mod tidy -go=1.22", A, N),
            ("go mod download -go=1.21", A, N),
        ],
    ),
    (
        "`python manage.py migrate --fake`",
        [
            ("python manage.py migrate --fake", R, M),
            ("python3 manage.py migrate --fake", R, S),
            ("python manage.py migrate", A, N),
            ("python manage.py migrate app --fake", A, N),
            ("python manage.py makemigrations --fake", A, N),
        ],
    ),
    (
        "`go test -race ./...`",
        [
            ("go test -race ./...", R, M),
            ("go test -v -race ./...", R, S),
            ("go test --race ./...", R, S),
            ("timeout 600 go test -race ./... 2>&1 | tail -50", R, T),
            (
                "cd /work/repo && go test -race ./... | grep -v '^ok'",
                A,
                T,
            ),  # another directory: the row ran at the root
            ("go test -race ./pkg/...", A, N),
            ("go test -race -run TestCache ./...", A, N),
            ("go test ./...", A, N),
            ("go build -race ./...", A, N),
        ],
    ),
    (
        "`git rebase -i origin/main`",
        [
            ("git rebase -i origin/main", R, M),
            ("git rebase --interactive origin/main", R, S),
            ("GIT_SEQUENCE_EDITOR=: git rebase -i origin/main", A, N),
            ("git rebase origin/main", A, N),
            ("git rebase -i origin/develop", A, N),
            ("git fetch && git rebase -i origin/main", R, T),
        ],
    ),
    (
        "`git checkout -b release`",
        [
            ("git checkout -b release", R, M),
            ("git checkout -q -b release", R, S),
            ("git checkout -b release-2", A, N),
            ("git checkout release", A, N),
            ("git switch -c release", A, N),
        ],
    ),
    (
        "`mvn -DskipTests package`",
        [
            ("mvn -DskipTests package", R, M),
            ("mvn package -DskipTests", R, S),
            ("mvn -q -DskipTests package", R, S),
            ("mvn package", A, N),
            ("mvn -DskipTests install", A, N),
        ],
    ),
    (
        "`helm upgrade --install api ./chart -n prod`",
        [
            ("helm upgrade --install api ./chart -n prod", R, M),
            ("helm upgrade api ./chart --install -n prod", R, S),
            ("helm upgrade --install api ./chart -n staging", A, N),
            ("helm upgrade --install web ./chart -n prod", A, N),
            ("helm template api ./chart -n prod", A, N),
        ],
    ),
    (
        "`alembic upgrade head`",
        [
            ("alembic upgrade head", R, M),
            (
                "cd backend && alembic upgrade head",
                A,
                T,
            ),  # another directory: the row ran at the root
            ("alembic upgrade +1", A, N),
            ("alembic downgrade head", A, N),
        ],
    ),
    (
        "`bundle exec rspec spec/models`",
        [
            ("bundle exec rspec spec/models", R, M),
            ("bundle exec rspec spec/models --verbose", R, S),
            ("bundle exec rspec spec/requests", A, N),
            ("bundle exec rspec", A, N),
        ],
    ),
    (
        "`npm publish --access public`",
        [
            ("npm publish --access public", R, M),
            ("npm publish --access=public", R, S),
            ("npm publish --access public --dry-run", A, N),
            ("npm publish", A, N),
            ("npm publish --access restricted", A, N),
        ],
    ),
    (
        "`docker run --rm app:dev`",
        [
            ("docker run --rm app:dev", R, M),
            ("docker container run --rm app:dev", R, S),
            ("sudo docker run --rm app:dev", R, S),
            ("docker run --rm=true app:dev", R, S),  # pflag: a switch takes =true
            ("docker run app:dev --rm", A, N),
            ("docker run --rm -v $PWD:/src app:dev", A, N),
            ("docker run --rm -e DEBUG=1 app:dev", A, N),
            ("docker run --rm app:dev sh", A, N),
            ("docker run --rm app:prod", A, N),
        ],
    ),
    (
        "`go run ./cmd/server -port 8080`",
        [
            ("go run ./cmd/server -port 8080", R, M),
            ("go run -v ./cmd/server -port 8080", R, S),
            ("go run ./cmd/server -port 9090", A, N),
            ("go run ./cmd/server", A, N),
            ("go run ./cmd/server -port 8080 -debug", A, N),
        ],
    ),
    (
        "`python scripts/seed.py --reset`",
        [
            ("python scripts/seed.py --reset", R, M),
            ("python3 scripts/seed.py --reset", R, S),
            ("python -u scripts/seed.py --reset", R, S),
            ("python scripts/seed.py", A, N),
            ("python scripts/seed.py --reset --dry-run", A, N),
            ("python -m scripts.seed --reset", A, N),
        ],
    ),
]


# Issue 28's hold-out (tests/test_command_holdout.py, written before the matcher was read),
# and the twins its fixes needed: an advised near miss is labelled allow here.
HOLDOUT_28: list[tuple[str, list[tuple[str, str, str]]]] = [
    (
        "`git push --force origin main`",
        [
            ("git push origin +main", R, S),
            ("git push -f origin +main", R, S),
            ("git push origin main -f", R, S),
            ("git push --force origin main --verbose", R, S),
            ("git push --force origin main 2>&1 | tail -5", R, S),
            ("git --no-pager push --force origin main", R, S),
            ("git push --force origin main # once more", R, S),
            ("git push --force origin ma''in", R, S),
            ("'g'it push --force origin main", R, S),
            ("g\\it push -f origin main", R, S),
            ('"git" "push" "--force" "origin" "main"', R, S),
            ("G=git; $G push --force origin main", R, S),
            ("git push origin +my-feature", A, N),
            ("git push origin main +dev", A, N),
            ("git push origin :main", A, N),
            ("git push origin --delete main", A, N),
            ("git push --force --dry-run origin main", A, N),
            ("git push origin +main --dry-run", A, N),
            ("git -C ../fork push --force origin main", A, N),
            ("git fetch origin main", A, N),
            (
                "python3 -c \"import subprocess; subprocess.run(['git', "
                "'push', '--force', 'origin', 'main'])\"",
                R,
                S,
            ),
            ("node -e \"require('child_process').execSync('git push --force origin main')\"", R, S),
            (
                "node -e \"require('child_process').execFileSync('git', "
                "['push', '-f', 'origin', 'main'])\"",
                R,
                S,
            ),
            ("node --eval \"require('child_process').execSync('git push -f origin main')\"", R, S),
            ("perl -e 'system(\"git push --force origin main\")'", R, S),
            ('perl -e \'system("git", "push", "--force", "origin", "main")\'', R, S),
            ("ruby -e 'system(\"git push --force origin main\")'", R, S),
            ("ruby -e '`git push -f origin main`'", R, S),
            ("node -e \"console.log('git push --force origin main')\"", A, N),
            ("perl -e 'print \"git push --force origin main\\n\"'", A, N),
            ("ruby -e 'puts \"git push --force origin main\"'", A, N),
            ("node -e \"require('child_process').execSync('git push --force origin dev')\"", A, N),
            ("perl -e 'system(\"git push origin main\")'", A, N),
            (
                "python3 -c \"import subprocess; subprocess.run(['git', "
                "'push', 'origin', 'main'])\"",
                A,
                N,
            ),
            ("sh -c 'git push --force origin main'", R, S),
            ("bash -lc 'git push --force origin main'", R, S),
            ("zsh -c 'git push --force origin main'", R, S),
            ("dash -c 'git push --force origin main'", R, S),
            ("bash -euo pipefail -c 'git push --force origin main'", R, S),
            ("bash <<< 'git push --force origin main'", R, S),
            ("bash <<'EOF'\ngit fetch\ngit push --force origin main\nEOF", R, S),
            (". <(echo 'git push --force origin main')", R, S),
            ("source <(printf '%s\\n' 'git push --force origin main')", R, S),
            ("echo $(git push --force origin main)", R, S),
            ("echo `git push --force origin main`", R, S),
            ("bash -c 'echo git push --force origin main'", A, N),
            ("cat <<'EOF'\ngit push --force origin main\nEOF", A, N),
            ("sh -c 'git push --force origin dev'", A, N),
            ("git push -f origin main +dev", A, N),
            ("git push origin +main +dev", A, N),
        ],
    ),
    (
        "`git push origin +main`",
        [
            ("git push --force origin main", R, S),
            ("git push -f origin main", R, S),
            ("git push origin main", A, N),
        ],
    ),
    (
        "`go test -tags=musl ./...`",
        [
            ("GOFLAGS=-tags=musl go test ./...", R, S),
            ('GOFLAGS="-tags=musl" go test ./...', R, S),
            ("env GOFLAGS=-tags=musl go test ./...", R, S),
            ("export GOFLAGS=-tags=musl; go test ./...", R, S),
            ("GOFLAGS=-tags=darwin go test ./...", A, N),
            ("GOFLAGS=-mod=vendor go test -tags=musl ./...", A, N),
            ("nice -n5 go test -tags=musl ./...", R, S),
            ("nice --adjustment=5 go test -tags=musl ./...", R, S),
            ("ionice -c3 go test -tags=musl ./...", R, S),
            ("ionice -c 2 -n 7 nice -n 19 go test -tags=musl ./...", R, S),
            ("timeout 10 go test -tags=musl ./...", R, S),
            ("timeout -k 5s 1m go test -tags=musl ./...", R, S),
            ("timeout --signal=KILL 5m go test -tags=musl ./...", R, S),
            ("time -p go test -tags=musl ./...", R, S),
            ("nohup go test -tags=musl ./... > out.log 2>&1 &", R, S),
            ("stdbuf -oL -eL go test -tags=musl ./...", R, S),
            ("command go test -tags=musl ./...", R, S),
            ("command -p go test -tags=musl ./...", R, S),
            ("builtin eval 'go test -tags=musl ./...'", R, S),
            ("exec go test -tags=musl ./...", R, S),
            ("doas -u ci go test -tags=musl ./...", R, S),
            ("sudo -u ci -- go test -tags=musl ./...", R, S),
            ("sudo -E -H go test -tags=musl ./...", R, S),
            ("chronic go test -tags=musl ./...", R, S),
            ("unbuffer go test -tags=musl ./...", R, S),
            ("setsid go test -tags=musl ./...", R, S),
            ("taskset -c 0 go test -tags=musl ./...", R, S),
            ("find . -maxdepth 0 -exec go test -tags=musl ./... \\;", R, S),
            ("printf '' | xargs go test -tags=musl ./...", R, S),
            ("env -i PATH=/usr/bin:/bin go test -tags=musl ./...", A, N),
            ("env -u GOFLAGS go test -tags=musl ./...", A, N),
            ("timeout 10 go test ./...", A, N),
            ("nice -n5 go vet -tags=musl ./...", A, N),
            ("sudo -u ci go test -tags=darwin ./...", A, N),
            ("command -v go", A, N),
            ("T=musl && go test -tags=$T ./...", R, S),
            ('export T=musl; go test -tags="$T" ./...', R, S),
            ("T=darwin; T=musl; go test -tags=$T ./...", R, S),
            ("(T=musl; go test -tags=$T ./...)", R, S),
            ("T=musl; (go test -tags=$T ./...)", R, S),
            ("T=musl go test -tags=$T ./...", A, N),
            ("T=musl; unset T; go test -tags=$T ./...", A, N),
            ("T=musl; T=darwin; go test -tags=$T ./...", A, N),
            ("(T=musl); go test -tags=$T ./...", A, N),
            ("go test -tags=${T:-musl} ./...", A, N),
            ("if true; then T=musl; fi; go test -tags=$T ./...", A, N),
            ("'g'o test -tags=musl ./...", R, S),
            ("go test -tags=m\\usl ./...", R, S),
            ("go test -tags=$'musl' ./...", R, S),
            ("go test \\\n  -tags=musl \\\n  ./...", R, S),
            ('"$(echo go)" test -tags=musl ./...', R, S),
            (
                "python3 -c \"import subprocess; subprocess.check_call('go "
                "test -tags=musl ./...', shell=True)\"",
                R,
                S,
            ),
            (
                "node -e \"require('child_process').spawnSync('go', ['test', "
                "'-tags=musl', './...'], {stdio: 'inherit'})\"",
                R,
                S,
            ),
            (
                "node -e \"const {execSync} = require('child_process'); "
                "execSync('go test -tags=musl ./...')\"",
                R,
                S,
            ),
            ('perl -e \'exec "go", "test", "-tags=musl", "./..."\'', R, S),
            ("perl -E 'system(\"go test -tags=musl ./...\")'", R, S),
            ('ruby -e \'exec("go", "test", "-tags=musl", "./...")\'', R, S),
            ("ruby -e 'puts `go test -tags=musl ./...`'", R, S),
            ("perl -e 'system(\"go vet -tags=musl ./...\")'", A, N),
            ("ruby -e 'puts \"go test -tags=musl ./...\"'", A, N),
            ("python3 -c \"print('go test -tags=musl ./...')\"", A, N),
            ("sh -s <<< 'go test -tags=musl ./...'", R, S),
            ('bash <<< "go test -tags=musl ./..."', R, S),
            (
                "bash <<EOF\ncd svc\ngo test -tags=musl ./...\nEOF",
                A,
                S,
            ),  # another directory: the row ran at the root
            ("cat > run.sh <<'EOF'\ngo test -tags=musl ./...\nEOF", A, N),
            ("env -C . go test -tags=musl ./...", R, S),
            ("env -C ../other go test -tags=musl ./...", A, N),
            ("sudo -D /srv/app go test -tags=musl ./...", A, N),
            ("perl -n -e 'system(\"go test -tags=musl ./...\")'", A, N),
            ("perl -we 'system(\"go test -tags=musl ./...\")'", R, S),
            ("ruby -e 'system(\"go test -tags=musl #{dir}\")'", A, N),
            ("node -p \"require('child_process').execSync('go test -tags=musl ./...')\"", R, S),
            ("node -e \"/go/.exec('go test -tags=musl ./...')\"", A, N),
            ("echo $(echo -n) go test -tags=musl ./...", A, N),
        ],
    ),
    (
        "`GOFLAGS=-tags=musl go test ./...`",
        [
            ("go test -tags=musl ./...", R, S),
            ("go test --tags musl ./...", R, S),
            ("go test ./...", A, N),
        ],
    ),
    (
        "`rm -rf build`",
        [
            ("rm -rf build/", R, S),
            ("rm -rf ./build", R, S),
            ("rm -rf build//", R, S),
            ("rm -rf ./build/", R, S),
            ('rm -rf "build"', R, S),
            ("rm -rf -- build", R, S),
            ("\\rm -rf build", R, S),
            ("command rm -rf build/", R, S),
            ("cd . && rm -rf build", R, S),
            ("rm -rf ../build", A, N),
            ("rm -rf /build", A, N),
            ("rm -rf Build", A, N),
            ("rm -ri build", A, N),
            ("ls build/", A, N),
        ],
    ),
    (
        "`git reset --hard HEAD~1`",
        [
            ("git -c color.ui=never reset --hard HEAD~1", R, S),
            ("git --no-pager reset --hard HEAD~1", R, S),
            ("git reset -q --hard HEAD~1", R, S),
            ("git -C ../other reset --hard HEAD~1", A, N),
            ("git -c core.hooksPath=/dev/null reset --hard HEAD~1", A, N),
            ("git log --oneline HEAD~1", A, N),
        ],
    ),
    (
        "`CGO_ENABLED=0 go build ./...`",
        [
            ("CGO_ENABLED=0 go build -o bin/app ./...", A, N),
        ],
    ),
    (
        "`npm install --legacy-peer-deps`",
        [
            ("npm add --legacy-peer-deps", R, S),
            ("npm install --legacy-peer-deps=true", R, S),
            ("npm install --legacy-peer", R, S),  # nopt expands a unique prefix
            ("npm --legacy-peer-d install", R, S),
            ("npm install --legacy", A, N),  # legacy-bundling too: an unknown config
            ("npm install --strict-peer", A, N),
            ("npm ls --legacy-peer-deps", A, N),
        ],
    ),
    (
        "`yarn add --dev lodash`",
        [
            ("yarn add -D lodash", R, S),
            ("yarn add lodash --dev", R, S),
            ("yarn add -D lodash@4", A, N),
            ("yarn remove lodash", A, N),
        ],
    ),
    (
        "`cargo build --release`",
        [
            ("cargo build -r", R, S),
            ("cargo b --release", R, S),
            ("cargo build --release -j 8", R, S),
            ("cargo build --release --quiet", R, S),
            ("cargo build --release=true", A, N),  # clap: "unexpected value 'true'"
            ("cargo +nightly build --release", A, N),
            ("cargo build --release -p core", A, N),
            ("cargo check --release", A, N),
            ("cargo build", A, N),
        ],
    ),
    (
        "`docker build -t app:dev .`",
        [
            ("docker image build -t app:dev .", R, S),
            ("docker build -t app:dev ./api", A, N),
            ("docker --context remote build -t app:dev .", A, N),
            ("docker images app:dev", A, N),
        ],
    ),
    (
        "`kubectl delete pod web-0 -n prod`",
        [
            ("kubectl -n prod delete pod web-0", R, S),
            ("kubectl delete pod web-0 --namespace=prod", R, S),
            ("kubectl delete pod web-0 --namespace prod", R, S),
            ("kubectl delete pod web-1 -n prod", A, N),
            ("kubectl delete pod web-0 -n staging", A, N),
            ("kubectl get pod web-0 -n prod", A, N),
            ("kubectl --context staging delete pod web-0 -n prod", A, N),
            ("kubectl delete pod web-0 -n prod --dry-run=client", A, N),
        ],
    ),
    (
        "`terraform apply -auto-approve`",
        [
            ("terraform apply -auto-approve=true", R, S),
            ("terraform plan", A, N),
            ("terraform destroy -auto-approve", A, N),
        ],
    ),
    (
        "`pytest -x tests/test_api.py`",
        [
            ("python -m pytest --exitfirst tests/test_api.py", R, S),
            ("pytest tests/test_api.py -x -q", R, S),
            ("pytest -x ./tests/test_api.py", R, S),
            ("pytest -x tests/", A, N),
            ("pytest -x -k slow tests/test_api.py", A, N),
            ("pytest -x tests/test_api.py -p no:cacheprovider", A, N),
        ],
    ),
    (
        "`pip install -r requirements.txt`",
        [
            ("pip install --requirement requirements.txt", R, S),
            ("pip install --requirement=requirements.txt", R, S),
            ("python3 -m pip install -r requirements.txt", R, S),
            ("pip3 install -r requirements.txt", R, S),
            ("pip install -r ./requirements.txt", R, S),
            ("pip install -qr requirements.txt", R, S),
            ("pip install -r requirements-dev.txt", A, N),
            ("pip download -r requirements.txt", A, N),
            ("pip install -r requirements.txt --user", A, N),
            ("uv pip install -r requirements.txt", A, N),
        ],
    ),
    (
        "`make deploy-fast`",
        [
            ("make --jobs=4 deploy-fast", R, S),
            ("make -j deploy-fast", R, S),
            ("make deploy-fast -j8", R, S),
            ("make -C infra deploy-fast", A, N),
            ("make deploy-fast ENV=prod", A, N),
        ],
    ),
]
# Twins found after the hold-out was fixed: a value that may not be set, an interpreter
# that gives what it runs another environment (all allowed; each a wrong refusal once).
HOLDOUT_28 += [
    (
        "`go test -tags=musl ./...`",
        [
            ("while false; do T=musl; done; go test -tags=$T ./...", A, N),
            ("false && T=musl; go test -tags=$T ./...", A, N),
            ("true || T=musl; go test -tags=$T ./...", A, N),
            ("f() { T=musl; }; go test -tags=$T ./...", A, N),
            ("if true; then export T=musl; fi; go test -tags=$T ./...", A, N),
            ("T=musl; if x; then T=darwin; fi; go test -tags=$T ./...", A, N),
            ("T=musl; for T in darwin; do :; done; go test -tags=$T ./...", A, N),
            ("T=musl; read T < f; go test -tags=$T ./...", A, N),
            ("export T=musl | true; go test -tags=$T ./...", A, N),
            (
                "cd svc && export T=musl && go test -tags=$T ./...",
                A,
                S,
            ),  # another directory: the row ran at the root
            ("{ T=musl; }; go test -tags=$T ./...", R, S),
            ("T=musl; while x; do go test -tags=$T ./...; done", R, S),
            (
                'python3 -c "import subprocess; '
                "subprocess.run(['go', 'test', '-tags=musl', './...'], env={'A': '1'})\"",
                A,
                N,
            ),
            (
                "python3 -c \"import os; os.environ['GOFLAGS'] = '-mod=mod'; "
                "os.system('go test -tags=musl ./...')\"",
                A,
                N,
            ),
            (
                "node -e \"require('child_process').execSync('go test -tags=musl ./...', "
                '{env: {}})"',
                A,
                N,
            ),
            ('perl -e \'$ENV{GOFLAGS} = ""; system("go test -tags=musl ./...")\'', A, N),
            ("go test -tags=musl -n ./...", A, N),
            ("bash -n -c 'go test -tags=musl ./...'", A, N),
            ("sh -nc 'go test -tags=musl ./...'", A, N),
            ("bash -c -n 'go test -tags=musl ./...'", A, N),
            ("bash --noexec -c 'go test -tags=musl ./...'", A, N),
            ("sudo -l go test -tags=musl ./...", A, N),
            ("sudo -u ci -l go test -tags=musl ./...", A, N),
            ("env --help go test -tags=musl ./...", A, N),
            ("sudo -k go test -tags=musl ./...", R, S),
            ("bash -ex -c 'go test -tags=musl ./...'", R, S),
            ("uv run go test -tags=musl ./...", A, N),
        ],
    ),
    (
        "`uv run pytest -x tests/test_api.py`",
        [
            ("uv run pytest -x tests/test_api.py", R, M),
            ("uv run -- pytest --exitfirst tests/test_api.py -q", R, S),
            ("pytest -x tests/test_api.py", A, N),
            ("poetry run pytest -x tests/test_api.py", A, N),
            ("uv run --with requests pytest -x tests/test_api.py", A, N),
        ],
    ),
    (
        "`git push --force origin main`",
        [
            # git: "option `force' takes no value" (parse-options refuses a switch's value)
            ("git push --force=true origin main", A, N),
            ("git -P push -f origin main", R, S),
        ],
    ),
    (
        "`kubectl delete pod web-0 -n prod`",
        [
            ("kubectl delete pods web-0 -n prod", R, S),
            ("kubectl delete po web-0 --namespace=prod", R, S),
            ("kubectl delete pod/web-0 -n prod", R, S),
            ("kubectl delete pod/web-1 -n prod", A, N),
            ("kubectl delete deploy web-0 -n prod", A, N),
        ],
    ),
    (
        "`docker build -t app:dev .`",
        [
            ("docker build --tag app:dev --progress plain .", R, S),
            ("DOCKER_BUILDKIT=0 docker build -t app:dev .", A, N),
        ],
    ),
    (
        "`make deploy-fast`",
        [
            ("gmake deploy-fast", R, S),
            ("gmake -n deploy-fast", A, N),
        ],
    ),
    (
        "`pip install -r requirements.txt`",
        [
            ("pip install -r requirements.txt --no-cache-dir", A, N),
            ("pip install -r requirements.txt --timeout 60", A, N),
            ("pip install --retries 10 -r requirements.txt", A, N),
            ("python3.12 -m pip install -r requirements.txt", A, N),
            ("pip3.12 install -r requirements.txt", A, N),
            ("pip3 install -r requirements.txt --progress-bar off", R, S),
        ],
    ),
    (
        "`pytest -x tests/test_api.py`",
        [
            ("python -W error -m pytest -x tests/test_api.py", A, N),
            ("python -O -m pytest -x tests/test_api.py", A, N),
            ("python -I -m pytest -x tests/test_api.py", A, N),
            ("python -u -B -m pytest -x tests/test_api.py", R, S),
        ],
    ),
]
CORPUS += HOLDOUT_28

# The second hold-out of issue 28 (tests/test_command_holdout2.py, written before the
# matcher was read; `{root}` is the directory the check runs in): each case as a pair.
HOLDOUT_2: list[tuple[str, list[tuple[str, str, str]]]] = [
    (
        "`git push --force origin main`",
        [
            ("git push --force origin main", R, M),
            ("git push origin main:main --force", R, S),
            ("git push origin main:refs/heads/main -f", R, S),
            ("git push --force origin refs/heads/main", R, S),
            ("git push --force origin refs/heads/main:refs/heads/main", R, S),
            ("git push -f origin main", R, S),
            ("git push origin --force main", R, S),
            ("git push origin +main:main", R, S),
            ("git push origin +refs/heads/main:refs/heads/main", R, S),
            ("git push origin +main:refs/heads/main", R, S),
            ("git push --force --verbose origin main", R, S),
            ("git push -fq origin main", R, S),
            ("git push --force --no-progress origin main", R, S),
            ("git --no-pager push --force origin main", R, S),
            ("git -P push -f origin main", R, S),
            ("git -C . push --force origin main", R, S),
            ("git --git-dir=.git push --force origin main", R, S),
            ("git --git-dir ./.git/ push --force origin main", R, S),
            ("git --git-dir=../fork/.git push --force origin main", A, N),
            ("git --git-dir=.git.bak push --force origin main", A, N),
            ("git -C sub --git-dir=.git push --force origin main", A, N),
            ("if false; then :; elif false; then git push --force origin main; fi", A, N),
            ("if false; then :; elif true; then git push --force origin main; fi", R, S),
            ("if x; then :; elif true; then :; else git push --force origin main; fi", A, N),
            ("if x; then :; elif y; then :; else git push --force origin main; fi", R, S),
            ("git push --force origin main 2>&1 | tee push.log", R, T),
            ("git push --force origin main || true", R, S),
            ("set -euo pipefail; git push --force origin main", R, S),
            ("timeout 120 git push --force origin main", R, S),
            ("git push -f origin HEAD:main", A, N),
            ("git push --force origin HEAD", A, N),
            ("git push --force origin main:other", A, N),
            ("git push --force origin other:main", A, N),
            ("git push --force origin :main", A, N),
            ("git push --force upstream main", A, N),
            ("git push --force git@example.com:x/y.git main", A, N),
            ("git push --force origin main dev", A, N),
            ("git push --force", A, N),
            ("git push --force --dry-run origin main", A, N),
            ("git push -n -f origin main", A, N),
            ("git push --force origin main --help", A, N),
            ("git push --force-with-lease origin main", A, N),
            ("git push --force --no-verify origin main", A, N),
            ("git push --force --tags origin main", A, N),
            ("git -C other push --force origin main", A, N),
            ("git --git-dir=../other/.git push --force origin main", A, N),
            ("GIT_DIR=../other/.git git push --force origin main", A, N),
            ("git pull --force origin main", A, N),
            ("echo git push --force origin main", A, N),
        ],
    ),
    (
        "`npm install --legacy-peer-deps`",
        [
            ("npm install --legacy-peer-deps", R, M),
            ("npm_config_legacy_peer_deps=true npm install", R, S),
            ("NPM_CONFIG_LEGACY_PEER_DEPS=true npm install", R, S),
            ("export npm_config_legacy_peer_deps=true; npm install", R, S),
            ("env npm_config_legacy_peer_deps=true npm i", R, S),
            ("npm i --legacy-peer-deps", R, S),
            ("npm add --legacy-peer-deps", R, S),
            ("npm isntall --legacy-peer-deps", R, S),
            ("npm install --legacy-peer-deps=true", R, S),
            ("npm --legacy-peer-deps install", R, S),
            ("npm install --legacy-peer-deps --silent", R, S),
            ("npm install --legacy-peer-deps --loglevel=error", R, S),
            ("npm install --legacy-peer-deps --no-fund", R, S),
            ("npm install --legacy-peer-deps 2>&1 | tail -50", R, T),
            ("npm_config_legacy_peer_deps=false npm install", A, N),
            ("npm_config_legacy_peer_deps=true npm install --legacy-peer-deps=false", A, N),
            ("npm ci --legacy-peer-deps", A, N),
            ("npm install --legacy-peer-deps lodash", A, N),
            ("npm install --force", A, N),
            ("npm install --legacy-peer-deps --dry-run", A, N),
            ("npm install", A, N),
            ("npm install --strict-peer-deps", A, N),
            ("pnpm install --legacy-peer-deps", A, N),
            ("cd web && npm install --legacy-peer-deps", A, N),
            ("cd /tmp && npm install --legacy-peer-deps", A, N),
            ("cd {root} && npm install --legacy-peer-deps 2>&1 | tail -50", R, T),
        ],
    ),
    (
        "`cd web && npm install --legacy-peer-deps`",
        [
            ("cd web && npm install --legacy-peer-deps 2>&1 | tail -50", R, T),
            ("cd web/ && npm i --legacy-peer-deps", R, S),
            ("(cd web && npm install --legacy-peer-deps)", R, S),
            ("cd web; npm install --legacy-peer-deps", A, N),  # if cd fails, npm runs at the root
            ("pushd web && npm install --legacy-peer-deps && popd", R, S),
            ("cd {root}/web && npm install --legacy-peer-deps", R, S),
            ("npm install --legacy-peer-deps", A, N),
            ("cd api && npm install --legacy-peer-deps", A, N),
            ("cd web && npm install", A, N),
        ],
    ),
    (
        "`rm -rf build`",
        [
            ("rm -rf build", R, M),
            ("cd sub && cd .. && rm -rf build", R, S),
            ("cd . && rm -rf build", R, S),
            ("cd {root} && rm -rf build", R, S),
            ("rm -rf {root}/build", R, S),
            ("pushd sub && popd && rm -rf build", R, S),
            ("cd /tmp && rm -rf build", A, N),
            ("(cd sub && rm -rf build)", A, N),
            ("cd sub && rm -rf build", A, N),
            ("cd sub; rm -rf build", A, N),
            ("pushd sub && rm -rf build", A, N),
            ("cd - && rm -rf build", A, N),
            ('cd "$OLDPWD" && rm -rf build', A, N),
            ("cd && rm -rf build", A, N),
            ("cd ~ && rm -rf build", A, N),
            ("bash -c 'cd sub && rm -rf build'", A, N),
            ("rm -rf sub/../build", A, N),
            ("echo build | xargs rm -rf", R, S),
            ("printf 'build\\n' | xargs rm -rf", R, S),
            ("echo build | xargs -r rm -rf", R, S),
            ("echo build | xargs -n1 rm -rf", R, S),
            ("xargs rm -rf <<< build", R, S),
            ("xargs -I{} rm -rf {} <<< build", R, S),
            ('echo "build" | xargs -I % rm -rf %', R, S),
            ("echo build2 | xargs rm -rf", A, N),
            ("echo build dist | xargs rm -rf", A, N),
            ("ls | xargs rm -rf", A, N),
            ("xargs rm -rf < list.txt", A, N),
            ("xargs -a list.txt rm -rf", A, N),
            ("find . -name build -exec rm -rf {} +", A, N),
            ("find . -type d -name build -prune -exec rm -rf {} \\;", A, N),
            ("find . -maxdepth 0 -exec rm -rf build \\;", R, S),
            ("find build -delete", A, N),
            ("r''m -rf build", R, S),
            ("\\rm -rf build", R, S),
            ("command rm -rf build", R, S),
            ("command -p rm -rf build", R, S),
            ("$'rm' -rf build", R, S),
            ('"rm" -rf "build"', R, S),
            ('rm -rf bu"ild"', R, S),
            ("rm -rf 'build'", R, S),
            ("rm -rf {build,}", R, S),
            ("rm -rf $(echo build)", R, S),
            ('B=build; rm -rf "$B"', R, S),
            ("/bin/rm -rf build", R, S),
            ("/usr/bin/env rm -rf build", R, S),
            ("builtin rm -rf build", A, N),
            ("command -v rm -rf build", A, N),
            ("rm -rf {build,dist}", A, N),
            ("rm -rfd build", R, S),  # -r removes empty directories too
            ("rm -r -f --dir build", R, S),
            ("rm -fd build", A, N),
            # a script that is one substitution of what only prints: what it prints
            ("bash -c \"$(cat <<'EOF'\nrm -rf build\nEOF\n)\"", R, S),
            ("eval \"$(cat <<'EOF'\nrm -rf build\nEOF\n)\"", R, S),
            ("bash -c \"$(cat <<'EOF'\necho rm -rf build\nEOF\n)\"", A, N),
            ("bash -c \"$(grep -v x <<'EOF'\nrm -rf build\nEOF\n)\"", A, N),
            ("D=build; bash -c \"$(cat <<'EOF'\nrm -rf $D\nEOF\n)\"", A, N),
            ('D=build; bash -c "$(cat <<EOF\nrm -rf $D\nEOF\n)"', R, S),
            ("git commit -m \"$(cat <<'EOF'\nrm -rf build\nEOF\n)\"", A, N),
            # two substitutions are no one script: each is what it prints, in place
            ('bash -c "$(echo rm -rf) $(echo build)"', R, S),
            ('bash -c "$(echo echo) rm -rf build $(echo x)"', A, N),
            ("rm -rf buil?", A, N),
            ("rm -rf build*", A, N),
            ('rm -rf "build "', A, N),
            ('B=build; rm -rf "$B"2', A, N),
            ("rm -rf ${B:-build}", A, N),
            ("alias r=rm; r -rf build", A, N),  # not an alias yet on its own line
            # from the next line on it is (Claude Code's Bash tool sets expand_aliases)
            ("alias r=rm\nr -rf build", R, S),
            ("alias r='rm -rf'\nr build", R, S),
            ("alias r='rm -rf'\nif true; then r build; fi", R, S),
            ("alias r='rm -rf'\nr build 2>&1 | tail -5", R, S),
            ("alias r='rm -rf'\nr build | tail -5", R, S),
            ("alias r='rm -rf'; true | r build", A, N),
            ("alias r='rm -rf'\nD=build\nr $D", R, S),
            ("alias r='rm -rf'\nr dist", A, N),
            ("alias r='rm -rf'\n'r' build", A, N),  # quoted: no alias
            ("alias r='rm -rf'\nunalias r\nr build", A, N),
            ("alias r='rm -rf'; {\nr build\n}", A, N),  # read with its line, before
            ("alias r='rm -rf'\necho r build", A, N),
            ("alias r='rm -rf'\nbash -c 'r build'", A, N),  # another shell: no alias
            # eval's text is read by this shell, with its variables
            ("D=build; eval 'rm -rf $D'", R, S),
            ("D=build; eval 'rm -rf $D'; D=dist", R, S),
            ("D=dist; eval 'rm -rf $D'", A, N),
            ("(D=build); eval 'rm -rf $D'", A, N),
            ("IFS=$X; C='rm -rf build'; eval '$C'", A, N),  # split by an IFS not known
            ("C='rm -rf build'; eval '$C'", R, S),
            ("PWD=$X; eval 'rm -rf \"$PWD/build\"'", A, N),
            ("eval 'rm -rf \"$PWD/build\"'", R, S),
            ("f(){ rm -rf build; }; f", R, S),
            ("f() { rm -rf build; }", A, N),
            # a called function's positional parameters are its call's arguments
            ('f() { rm -rf "$1"; }; f build', R, S),
            ('f() { rm -rf "$1"; }; f dist', A, N),
            ('run() { "$@"; }; run rm -rf build', R, S),
            ('run() { "$@"; }; run echo rm -rf build', A, N),
            ('retry() { for i in 1 2 3; do "$@" && break; done; }; retry rm -rf build', R, S),
            ('run() { "$@"; }; run rm -rf dist; run rm -rf build', R, S),
            ('run() { "$@"; }; run rm -rf build; run() { :; }', R, S),
            ('run() { "$@"; }; run true; run() { :; }; run rm -rf build', A, N),
            ('run() { "$@"; }; D=build; run rm -rf $D', R, S),
            ('run() { "$@"; }; C="rm -rf build"; run "$C"', A, N),
            ('f() { rm -rf "$2"; }; f build dist', A, N),
            ('run() { "$@"; }; run -- rm -rf build', A, N),  # runs `--`: not set's options
            ('f() { rm -rf "$2"; }; f -- build', R, S),
            ('f() { f "$@"; }; f rm -rf build', A, N),  # it never returns to run rm
            # a function not called by its name as a command may still run
            ("f(){ rm -rf build; }; trap f EXIT", R, S),
            ("f(){ rm -rf build; }; eval f", R, S),
            ("f(){ rm -rf build; }; export -f f; bash -c f", R, S),
            ("f(){ rm -rf build; }; F=f; $F", R, S),
            ("f(){ rm -rf build; }; time f", R, S),
            ("f(){ rm -rf build; }; command f", R, S),
            ("f(){ rm -rf build; }; . ./steps.sh", R, S),
            ("f(){ rm -rf build; }; source steps.sh", R, S),
            ("g(){ f; }; f(){ rm -rf build; }; g", R, S),
            ("clean(){ rm -rf build; }; echo ready", A, N),
            # a directory change behind a prefix or inside eval: another directory
            # $PWD is the directory the command runs in, when the line followed it
            ('rm -rf "$PWD/build"', R, S),
            ("rm -rf ${PWD}/build/", R, S),
            ('cd sub && cd .. && rm -rf "$PWD/build"', R, S),
            ('cd sub && rm -rf "$PWD/build"', A, N),
            ("PWD=/srv; rm -rf $PWD/build", A, N),
            ('rm -rf "$PWD/build2"', A, N),
            # a quoted or escaped $ is literal: no variable
            ("rm -rf '$PWD/build'", A, N),
            ("B=build; rm -rf '$B'", A, N),
            ("B=build; rm -rf \\$B", A, N),
            ('B=build; rm -rf "$B"', R, S),
            ("CDPATH=/srv cd sub && rm -rf build", A, N),
            ("command cd sub && rm -rf build", A, N),
            ("builtin cd sub && rm -rf build", A, N),
            ("eval cd sub && rm -rf build", A, N),
            ("eval 'true && cd sub' && rm -rf build", A, N),
            ("eval eval cd sub && rm -rf build", A, N),
            # a run of evals is one text, however long (it never passes the nesting bound)
            ("eval eval eval eval eval eval rm -rf build", R, S),
            ("eval " * 12 + "rm -rf build", R, S),
            ("eval -- " + "eval " * 12 + "rm -rf build", R, S),
            ("eval " * 12 + "rm -rf build2", A, N),
            ("eval " * 12 + "cd sub && rm -rf build", A, N),
            ("command -v cd >/dev/null; rm -rf build", R, S),
            ("eval echo cd; rm -rf build", R, S),
            ("builtin cd . && rm -rf build", R, S),
            ("command cd sub/.. && rm -rf build", R, S),
            ("clean(){ rm -rf build; }; make all && ls ./out", A, N),
            ("rm -fr build", R, S),
            ("rm -Rf build", R, S),
            ("rm --recursive --force build", R, S),
            ("rm -f -R ./build", R, S),
            ("rm -rfv build", R, S),
            ("rm -rf -- build", R, S),
            ("rm -rf build && mkdir build", R, S),
            ("rm -rf build2", A, N),
            ("rm -rf ./build/cache", A, N),
            ("rm -rf build/*", A, N),
            ("rm -r build", A, N),
            ("rm --help", A, N),
            ("git clean -fdx build", A, N),
            ("bash <<'EOF'\nrm -rf build\nEOF", R, S),
            ("sh -s <<< 'rm -rf build'", R, S),
            ("bash -s -- x <<< 'rm -rf build'", R, S),
            ("source <(echo rm -rf build)", R, S),
            ("echo 'rm -rf build' | bash -x", R, S),
            ('eval "$(echo rm -rf build)"', R, S),
            ("echo rm -rf build | tee /dev/stderr | sh", R, S),
            ("sh <<'A'\nsh <<'B'\nrm -rf build\nB\nA", R, S),  # a shell inside a fed shell
            ("bash -s <<<'bash -s <<<\"rm -rf build\"'", R, S),
            ("echo 'echo rm -rf build | sh' | sh", R, S),
            ("sh <<<'true'; sh <<<'rm -rf build'", R, S),
            ("sh <<'A'\nsh <<'B'\nrm -rf build2\nB\nA", A, N),
            ("echo 'echo rm -rf build | cat' | sh", A, N),
            ("cat <<'E' | sh\nrm -rf build\nE", R, S),  # what cat and tee pass on
            ("tee /dev/null <<<'rm -rf build' | sh", R, S),
            ("cat <<'E' && sh\nrm -rf build\nE", A, N),
            ("cat <<'E' | grep -v x | sh\nrm -rf build\nE", A, N),
            ("sh -c '$0 $1 $2' rm -rf build", R, S),  # a -c script's positional parameters
            ("bash -c 'eval \"$1\"' _ 'rm -rf build'", R, S),
            ("bash -c '\"$@\"' _ rm -rf build", R, S),
            ("sh -c 'echo $1' _ 'rm -rf build'", A, N),
            ('bash -c "$(echo rm -rf build)"', R, S),  # $(echo …) in a text a shell reads
            ('sh <<< "$(echo rm -rf build)"', R, S),
            ("bash -c \"$(printf 'rm -rf build')\"", R, S),
            ("bash -c \"$(printf '%s' rm -rf build)\"", A, N),
            ('bash -c "echo $(echo rm -rf build)"', A, N),
            ("sh < <(echo rm -rf build)", R, S),  # a process substitution as its input
            ("sh 3< <(echo rm -rf build)", A, N),
            ("echo 'rm -rf build' | bash -n", A, N),
            ("echo 'rm -rf build' | cat", A, N),
            ("echo 'rm -rf build' > clean.sh", A, N),
            ("cat <<'EOF'\nrm -rf build\nEOF", A, N),
            ("nohup rm -rf build", R, S),
            ("nohup rm -rf build &", R, S),
            ("time rm -rf build", R, S),
            ("time -p rm -rf build", R, S),
            ("exec rm -rf build", R, S),
            ("exec -a cleaner rm -rf build", R, S),
            ("stdbuf -oL rm -rf build", R, S),
            ("stdbuf -o0 -e0 rm -rf build", R, S),
            ("ionice -c3 rm -rf build", R, S),
            ("ionice -c 3 rm -rf build", R, S),
            ("nice -n 10 rm -rf build", R, S),
            ("chronic rm -rf build", R, S),
            ("unbuffer rm -rf build", R, S),
            ("doas rm -rf build", R, S),
            ("doas -u root rm -rf build", R, S),
            ("sudo -- rm -rf build", R, S),
            ("sudo -E rm -rf build", R, S),
            ("sudo -H rm -rf build", R, S),
            ("sudo -i rm -rf build", A, N),
            ("sudo --login rm -rf build", A, N),
            ("su -c 'rm -rf build'", R, S),
            ("su root -c 'rm -rf build'", R, S),
            ("su - -c 'rm -rf build'", A, N),
            ("su -l -c 'rm -rf build'", A, N),
            ("runuser -u root -- rm -rf build", R, S),
            ("runuser -l root -c 'rm -rf build'", A, N),
            ("systemd-run --user --wait rm -rf build", A, N),
            ("systemd-run --user --wait --same-dir rm -rf build", R, S),
            ("setsid -f rm -rf build", R, S),
            ("timeout -s KILL 10 rm -rf build", R, S),
            ("timeout --kill-after=5 60 rm -rf build", R, S),
            ("env -- rm -rf build", R, S),
            ("watch -n1 rm -rf build", R, S),
            ("flock /tmp/lock rm -rf build", R, S),
            ("script -qc 'rm -rf build' /dev/null", R, S),
            ("set -x; rm -rf build", R, S),
            ("docker exec ctr sh -c 'rm -rf build'", A, N),
            ("docker exec ctr rm -rf build", A, N),
            ("kubectl exec web-0 -- rm -rf build", A, N),
            ("ssh host 'rm -rf build'", A, N),
            ("ssh host rm -rf build", A, N),
        ],
    ),
    (
        "`cargo build --release`",
        [
            ("cargo build --release", R, M),
            ("cargo build --profile release", R, S),
            ("cargo build --profile=release", R, S),
            ("cargo b -r", R, S),
            ("cargo b --release", R, S),
            ("cargo build -r", R, S),
            ("cargo build --release --quiet", R, S),
            ("cargo build --release -v", R, S),
            ("cargo build --release -j 4", R, S),
            ("cargo build --release --jobs=2", R, S),
            ("cargo build --release --color never", R, S),
            ("cargo build --release --message-format=short", R, S),
            ("cargo build", A, N),
            ("cargo build --profile dev", A, N),
            ("cargo +stable build --release", A, N),
            ("cargo check --release", A, N),
            ("cargo r --release", A, N),
            ("cargo build --release --target x86_64-unknown-linux-musl", A, N),
            ("cargo build --release -p core", A, N),
            ("cargo build --release --locked", A, N),
            ("CARGO_PROFILE_RELEASE_LTO=true cargo build --release", A, N),
            ("RUSTFLAGS=-Ctarget-cpu=native cargo build --release", A, N),
            ("cargo build --release --help", A, N),
        ],
    ),
    (
        "`docker build -t app .`",
        [
            ("docker build -t app .", R, M),
            ("docker build --tag app .", R, S),
            ("docker build --tag=app .", R, S),
            ("docker build . -t app", R, S),
            ("docker image build -t app .", R, S),
            ("docker build -t app:latest .", R, S),
            ("docker build -q -t app .", R, S),
            ("docker build --progress=plain -t app .", R, S),
            ("docker build --no-cache -t app .", A, N),
            ("docker build -t app -f Dockerfile.dev .", A, N),
            ("docker build -t app2 .", A, N),
            ("docker build -t app:dev .", A, N),
            ("docker build -t app ..", A, N),
            ("docker build -t app --pull .", A, N),
            ("DOCKER_BUILDKIT=0 docker build -t app .", A, N),
            ("docker --context remote build -t app .", A, N),
            ("docker -H ssh://ci build -t app .", A, N),
        ],
    ),
    (
        "`kubectl delete pod web-0 --force --grace-period=0`",
        [
            ("kubectl delete pod web-0 --force --grace-period=0", R, M),
            ("kubectl delete pod web-0 --grace-period=0 --force", R, S),
            ("kubectl delete --force --grace-period 0 pod web-0", R, S),
            ("kubectl delete po web-0 --force --grace-period=0", R, S),
            ("kubectl delete pods/web-0 --grace-period=0 --force", R, S),
            ("kubectl delete pod/web-0 --force --grace-period=0", R, S),
            ("kubectl delete pod web-0 --force --grace-period=0 -v=6", R, S),
            ("kubectl delete pod web-1 --force --grace-period=0", A, N),
            ("kubectl delete pod web-0", A, N),
            ("kubectl delete pod web-0 --now", A, N),
            ("kubectl -n prod delete pod web-0 --force --grace-period=0", A, N),
            ("kubectl --context staging delete pod web-0 --force --grace-period=0", A, N),
            ("kubectl delete pod web-0 --force --grace-period=0 --dry-run=client", A, N),
            ("kubectl delete deploy web-0 --force --grace-period=0", A, N),
        ],
    ),
    (
        "`terraform apply -auto-approve`",
        [
            ("terraform apply -auto-approve", R, M),
            ("terraform apply --auto-approve", R, S),
            ("terraform apply -auto-approve=true", R, S),
            ("terraform apply -auto-approve -no-color", R, S),
            ("TF_CLI_ARGS_apply=-auto-approve terraform apply", R, S),
            ("TF_LOG=DEBUG terraform apply -auto-approve", R, S),
            ("terraform -chdir=infra apply -auto-approve", A, N),
            ("terraform plan", A, N),
            ("terraform apply", A, N),
            ("terraform apply -auto-approve -target=aws_instance.web", A, N),
            ("terraform apply -auto-approve plan.tfplan", A, N),
            ("terraform apply -auto-approve -refresh=false", A, N),
            ("terraform apply -auto-approve -lock=false", A, N),
            ("terraform destroy -auto-approve", A, N),
        ],
    ),
    (
        "`pytest -x tests/test_api.py`",
        [
            ("pytest -x tests/test_api.py", R, M),
            ("pytest --exitfirst tests/test_api.py", R, S),
            ("pytest --maxfail=1 tests/test_api.py", R, S),
            ("python -m pytest -x tests/test_api.py", R, S),
            ("py.test -x tests/test_api.py", R, S),
            ("pytest tests/test_api.py -x -q", R, S),
            ("pytest -xq tests/test_api.py", R, S),
            ("pytest -x ./tests/test_api.py", R, S),
            ("pytest -x tests/test_api.py --tb=short", R, S),
            ("pytest -x tests/test_api.py -rA", R, S),
            ("PYTEST_ADDOPTS=-x pytest tests/test_api.py", R, S),
            ("timeout 600 pytest -x tests/test_api.py 2>&1 | tail -30", R, T),
            ("pytest -x tests/test_api.py::test_login", A, N),
            ("pytest tests/test_api.py", A, N),
            ("pytest -x tests/", A, N),
            ("pytest -x --collect-only tests/test_api.py", A, N),
            ("pytest -x --co tests/test_api.py", A, N),
            ("pytest -x -k login tests/test_api.py", A, N),
            ("pytest -x tests/test_api.py --lf", A, N),
            ("pytest -x tests/test_api.py -p no:cacheprovider", A, N),
            ("pytest --maxfail=2 tests/test_api.py", A, N),
            ("uv run pytest -x tests/test_api.py", A, N),
            ("poetry run pytest -x tests/test_api.py", A, N),
            ("pytest -x tests/test_api.py --help", A, N),
        ],
    ),
    (
        "`make -C web deploy`",
        [
            ("make -C web deploy", R, M),
            ("cd web && make deploy", R, S),
            ("(cd web && make deploy)", R, S),
            ("make --directory=web deploy", R, S),
            ("make --directory web deploy", R, S),
            ("make -C web/ deploy", R, S),
            ("make -Cweb deploy", R, S),
            ("make deploy -C web", R, S),
            ("make -C web -j8 deploy", R, S),
            ("make -C web -s deploy", R, S),
            ("make -C web --no-print-directory deploy", R, S),
            ("gmake -C web deploy", R, S),
            ("make -C web -n deploy", A, N),
            ("make -C web --dry-run deploy", A, N),
            ("make -C web --just-print deploy", A, N),
            ("make -C web deploy -n", A, N),
            ("MAKEFLAGS=-n make -C web deploy", A, N),
            ("make -C api deploy", A, N),
            ("make deploy", A, N),
            ("make -C web deploy ENV=prod", A, N),
            ("make -f web/Makefile deploy", A, N),
            ("cd api && make deploy", A, N),
            ("make -C web deploy-fast", A, N),
        ],
    ),
    (
        "`go test -tags=musl ./...`",
        [
            ("go test -tags=musl ./...", R, M),
            ('GOFLAGS="-tags=musl -v" go test ./...', R, S),
            ("env GOFLAGS=-tags=musl go test ./...", R, S),
            ("export GOFLAGS=-tags=musl && go test ./...", R, S),
            ("go test -tags musl ./...", R, S),
            ("go test -tags='musl' ./...", R, S),
            ("go test -tags=musl ./... -v", R, S),
            ("go test -tags=musl -json ./...", R, S),
            ("GOFLAGS=-mod=mod go test -tags=musl ./...", A, N),
            ("GOFLAGS=-tags=musl go test -tags=netgo ./...", A, N),
            ("go test -tags=musl,netgo ./...", A, N),
            ("go test -tags=musl -run TestX ./...", A, N),
            ("go test -tags=musl -race ./...", A, N),
            ("go test -tags=musl -short ./...", A, N),
            ("go test -tags=musl -vet=off ./...", A, N),
            ("go vet -tags=musl ./...", A, N),
            ("CGO_ENABLED=0 go test -tags=musl ./...", A, N),
            ("GOTOOLCHAIN=go1.21.0 go test -tags=musl ./...", A, N),
            ("go1.22.0 test -tags=musl ./...", A, N),
        ],
    ),
    (
        "`pip install -e .`",
        [
            ("pip install -e .", R, M),
            ("pip install --editable=.", R, S),
            ("pip install -e ./", R, S),
            ("python3 -m pip install -e .", R, S),
            ("pip3 install -e .", R, S),
            ("pip install -e . --quiet", R, S),
            ("pip install -e . --progress-bar off", R, S),
            ("pip install -e . --disable-pip-version-check", R, S),
            ("python -m pip install -e . 2>&1 | tail -5", R, T),
            ("pip install -e .[dev]", A, N),
            ("pip install -e . --no-deps", A, N),
            ("PIP_NO_DEPS=1 pip install -e .", A, N),
            ("pip install .", A, N),
            ("pip install -e . --user", A, N),
            ("pip install -e . --dry-run", A, N),
            ("pip install -e ..", A, N),
            ("uv pip install -e .", A, N),
        ],
    ),
    (
        "`npm run build`",
        [
            ("npm run build", R, M),
            ("npm run-script build", R, S),
            ("npm run build --silent", R, S),
            ("npm run-script build -s", R, S),
            ("npm_config_loglevel=silent npm run build", R, S),
            ("npm run build -- --watch", A, N),
            ("npm run build --workspace=web", A, N),
            ("npm run test", A, N),
            ("yarn run build", A, N),
        ],
    ),
    (
        "`yarn build`",
        [
            ("yarn build", R, M),
            ("yarn run build", R, S),
            ("yarn build --watch", A, N),
            ("yarn run build --watch", A, N),
            ("yarn install", A, N),
        ],
    ),
    (
        "`npx tsc --noEmit`",
        [
            ("npx tsc --noEmit", R, M),
            ("npx -y tsc --noEmit", R, S),
            ("npx --yes tsc --noEmit", R, S),
            ("npx tsc --noEmit --watch", A, N),
            ("npx tsc", A, N),
        ],
    ),
    (
        "`./scripts/deploy.sh staging`",
        [
            ("./scripts/deploy.sh staging", R, M),
            ("scripts/deploy.sh staging", R, S),
            ("{root}/scripts/deploy.sh staging", R, S),
            ("sh -c './scripts/deploy.sh staging'", R, S),
            ("./scripts/deploy.sh production", A, N),
            ("./scripts/deploy.sh staging --dry-run", A, N),
            ("cd scripts && ./deploy.sh staging", A, N),
            # a program spelled as a path is that file: another folder, another program
            ("./scripts/../scripts/deploy.sh staging", R, S),
            ("./scripts//deploy.sh staging", R, S),
            ("./old/deploy.sh staging", A, N),
            ("{root}/old/deploy.sh staging", A, N),
            ("deploy.sh staging", A, N),
            ("../scripts/deploy.sh staging", A, N),
        ],
    ),
    (
        "`/opt/tool/bin/mytool run --all`",
        [
            ("mytool run --all", R, S),
            ("/usr/local/bin/mytool run --all", R, S),
            ("./mytool run --all", A, N),
            ("bin/mytool run --all", A, N),
        ],
    ),
    (
        "`pytest -x tests/unit`",
        [
            (".venv/bin/pytest -x tests/unit", R, S),
            ("./venv/bin/python -m pytest -x tests/unit", R, S),
            ("/usr/bin/pytest -x tests/unit", R, S),
            (".venv/bin/pytest -x tests/integration", A, N),
        ],
    ),
    # the twins of the pairs relabelled when the directory became part of what runs:
    # the row recorded in that directory
    (
        "`cd svc && go test -tags=musl ./...`",
        [
            ("cd svc && go test -tags=musl ./... 2>&1 | tail -30", R, T),
            ("cd svc && export T=musl && go test -tags=$T ./...", R, S),
            ("bash <<EOF\ncd svc && go test -tags=musl ./...\nEOF", R, S),
            ("(cd svc/ && go test --tags musl ./...)", R, S),
            ("go test -tags=musl ./...", A, N),
            ("cd cmd && go test -tags=musl ./...", A, N),
        ],
    ),
    (
        "`cd backend && alembic upgrade head`",
        [
            ("cd backend && alembic upgrade head", R, M),
            ("cd ./backend && alembic upgrade head", R, S),
            ("alembic upgrade head", A, N),
        ],
    ),
]
CORPUS += HOLDOUT_2

# Issue 28 item 1: long options abbreviated to a prefix, and subcommand aliases. A prefix
# is the option for GNU getopt_long (rm, cp, make), optparse (pip) and git's parse-options
# when it is unique among ALL the (sub)command's long options; an ambiguous one is an
# error, and Go's flag package, cobra, clap and pytest take none (docs/check-command.md).
# Each label checked with the real tool (git 2.39.5, GNU coreutils 9.1, GNU Make 4.3,
# pip 23.2.1, cargo 1.95.0, pytest 9.2.0, terraform 1.11.4, docker 28.2.2, kubectl 1.32).
ABBREVIATIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    (
        "`rm -rf build`",
        [
            ("rm --rec --for build", R, S),
            ("rm --recursive --forc build", R, S),
            ("rm --re --f build", R, S),
            ("rm --for --rec build", R, S),
            ("rm --recur -f build", R, S),
            ("rm -r --fo build", R, S),
            ("rm --rec --for --verb build", R, S),
            ("rm --rec build", A, N),
            ("rm --rec --for dist", A, N),
            ("rm --v --rec --for build", A, N),  # --verbose or --version: an error
            ("rm --d --for build", A, N),  # --dir: only an empty directory
            ("rm --rec --for --no-p build", A, N),  # --no-preserve-root: an option more
        ],
    ),
    (
        "`cp -r assets build`",
        [
            ("cp -r assets build", R, M),
            ("cp --rec assets build", R, S),
            ("cp --recu assets build", R, S),
            ("cp -r --verb assets build", R, S),
            ("cp --r assets build", A, N),  # --recursive, --reflink, --remove-destination
            ("cp --re assets build", A, N),
            ("cp --no --rec assets build", A, N),  # four --no- options: an error
            ("cp --no-c --rec assets build", A, N),  # --no-clobber
        ],
    ),
    (
        "`cp -a assets dist`",
        [
            ("cp -a assets dist", R, M),
            ("cp -aR assets dist", R, S),  # -a is -dR --preserve=all
            ("cp -a -p assets dist", R, S),
            ("cp --archive --recursive assets dist", R, S),
            ("cp -r assets dist", A, N),  # copies, preserves nothing
            ("cp -p assets dist", A, N),
            ("cp -a --preserve=mode assets dist", A, N),  # a value: not the bare -p
        ],
    ),
    (
        "`make deploy`",
        [
            ("make deploy", R, M),
            ("make --sil deploy", R, S),
            ("make --quie deploy", R, S),
            ("make --no-pr deploy", R, S),
            ("make --dry deploy", A, N),  # --dry-run: prints, runs nothing
            ("make --just deploy", A, N),  # --just-print
            ("make --rec deploy", A, N),  # --recon
            ("make --tou deploy", A, N),  # --touch
            ("make --que deploy", A, N),  # --question
            ("make --k deploy", A, N),  # --keep-going
            ("make --s deploy", A, N),  # --silent, --stop, --sync-mutex: an error
            ("make --no deploy", A, N),
            ("make --jo=4 deploy", A, N),  # --jobs or --jobserver-auth: an error
            ("make --dir=web deploy", A, N),
        ],
    ),
    (
        "`make -n deploy`",
        [
            ("make -n deploy", R, M),
            ("make --dry deploy", R, S),
            ("make --just deploy", R, S),
            ("make --rec deploy", R, S),
            ("make --dry-r deploy", R, S),
            ("make deploy", A, N),
            ("make --d deploy", A, N),  # --debug, --directory, --dry-run: an error
            ("make -n --no-s deploy", A, N),  # --no-silent
        ],
    ),
    (
        "`make -C web deploy`",
        [
            ("make --dir=web deploy", R, S),
            ("make --di web deploy", R, S),
            ("make --d web deploy", A, N),
        ],
    ),
    (
        "`pip install -e .`",
        [
            ("pip install --edit .", R, S),
            ("pip install --ed=.", R, S),
            ("pip install --edit . --disable", R, S),
            ("pip install --e .", A, N),  # --editable, --exists-action, --extra-index-url
            ("pip install --ex .", A, N),
            ("pip install --edit . --no-b", A, N),  # --no-binary, --no-build-isolation
            ("pip install --edit . --no-bu", A, N),  # --no-build-isolation
            ("pip install --u -e .", A, N),
            ("pip install --upg -e .", A, N),  # --upgrade, --upgrade-strategy
            ("pip i -e .", A, N),  # pip: unknown command "i"
        ],
    ),
    (
        "`pip install -r requirements.txt`",
        [
            ("pip install --requirement requirements.txt -q", R, S),
            # pip 26's --requirements-from-script: no prefix of --requirement is unique
            ("pip install --requirem requirements.txt", A, N),
            ("pip install --req requirements.txt", A, N),  # --require-hashes, ...
        ],
    ),
    (
        "`git push --force origin main`",
        [
            ("git push --verb --force origin main", R, S),
            ("git push --forc origin main", A, N),  # --force-with-lease, --force-if-includes
            ("git push --fo origin main", A, N),
            ("git push --force-w origin main", A, N),  # --force-with-lease
        ],
    ),
    (
        "`git push --set-upstream origin main`",
        [
            ("git push --set-upstream origin main", R, M),
            ("git push --set-up origin main", R, S),
            ("git push --set origin main", R, S),
            ("git push -u origin main", R, S),
            ("git push --s origin main", A, N),  # --set-upstream or --signed
            ("git push --no-set origin main", A, N),
            ("git push --set-up origin my-feature", A, N),
        ],
    ),
    (
        "`git push --dry-run origin main`",
        [
            ("git push --dry-run origin main", R, M),
            ("git push --dry origin main", R, S),
            ("git push -n origin main", R, S),
            ("git push --d origin main", A, N),  # --delete or --dry-run
            ("git push --del origin main", A, N),  # --delete
            ("git push --no-dry origin main", A, N),
        ],
    ),
    (
        "`git push --no-verify origin main`",
        [
            ("git push --no-verify origin main", R, M),
            ("git push --no-veri origin main", R, S),
            ("git push --no-ver origin main", A, N),  # --no-verbose or --no-verify
            ("git push --no-v origin main", A, N),
            ("git push --veri origin main", A, N),  # --verify
        ],
    ),
    (
        "`git commit --amend --no-edit`",
        [
            ("git commit --amend --no-edit", R, M),
            ("git commit --amen --no-ed", R, S),
            ("git commit --am --no-e", R, S),
            ("git commit --a --no-edit", A, N),  # --all, --allow-empty, --amend, ...
            ("git commit --amend --no-e --no-ver", A, N),
            ("git commit --amend --e", A, N),  # --edit
        ],
    ),
    (
        "`git commit -am 'wip'`",
        [
            ("git commit --all --mes wip", R, S),
            ("git commit -a --m wip", R, S),
            ("git commit --al --mess=wip", A, N),  # --all, --allow-empty, ...
            ("git commit -am wip --no-veri", A, N),
        ],
    ),
    (
        "`npm install --legacy-peer-deps`",
        [
            ("npm ins --legacy-peer-deps", R, S),
            ("npm inst --legacy-peer-deps", R, S),
            ("npm instal --legacy-peer-deps", R, S),
            ("npm isntal --legacy-peer-deps", R, S),
            ("npm it --legacy-peer-deps", A, N),  # install-test
            ("npm ic --legacy-peer-deps", A, N),  # ci
        ],
    ),
    (
        "`npm ci`",
        [
            ("npm ci", R, M),
            ("npm clean-install", R, S),
            ("npm ic", R, S),
            ("npm install-clean", R, S),
            ("npm isntall-clean", R, S),
            ("npm install", A, N),
            ("npm cit", A, N),  # install-ci-test
        ],
    ),
    (
        "`npm run build`",
        [
            ("npm rum build", R, S),
            ("npm urn build", R, S),
            ("npm rum lint", A, N),
        ],
    ),
    (
        "`npm test`",
        [
            ("npm tst", R, S),
            ("npm it", A, N),
        ],
    ),
    (
        "`npm uninstall left-pad`",
        [
            ("npm uninstall left-pad", R, M),
            ("npm un left-pad", R, S),
            ("npm unlink left-pad", R, S),
            ("npm r left-pad", R, S),
            ("npm remove left-pad", R, S),
            ("npm uninstall right-pad", A, N),
            ("npm install left-pad", A, N),
        ],
    ),
    (
        "`npm update`",
        [
            ("npm update", R, M),
            ("npm up", R, S),
            ("npm upgrade", R, S),
            ("npm udpate", R, S),
            ("npm update lodash", A, N),
        ],
    ),
    (
        "`cargo remove serde`",
        [
            ("cargo remove serde", R, M),
            ("cargo rm serde", R, S),
            ("cargo rm tokio", A, N),
        ],
    ),
    (
        "`pnpm remove lodash`",
        [
            ("pnpm remove lodash", R, M),
            ("pnpm uninstall lodash", R, S),
            ("pnpm un lodash", R, S),
            ("pnpm uni lodash", R, S),
            ("pnpm rm lodash", R, S),
            ("pnpm remove react", A, N),
        ],
    ),
    # No abbreviation: Go's flag package, clap, cobra, argparse with allow_abbrev=False.
    (
        "`go test -tags=musl ./...`",
        [
            ("go test -tag=musl ./...", A, N),
            ("go test --ta=musl ./...", A, N),
        ],
    ),
    ("`cargo build --release`", [("cargo build --rel", A, N)]),
    ("`terraform apply -auto-approve`", [("terraform apply -auto", A, N)]),
    ("`docker build -t app .`", [("docker build --ta app .", A, N)]),
    ("`pytest -x tests/test_api.py`", [("pytest --exitf tests/test_api.py", A, N)]),
    (
        "`kubectl delete pod web-0 -n prod`",
        [("kubectl delete pod web-0 --namesp prod", A, N)],
    ),
]
CORPUS += ABBREVIATIONS

# Issue 28 item 1, stop 39: the shell's own state (`shift`, slices of "$@" and arrays,
# `read`/`printf -v` from text written out, aliases ending in a blank, after `time` and
# in `eval`'s text, `time`/`!` before a compound command). Each label is what real bash
# runs, checked by tests/test_shell_state.py with an `rm` that records its arguments.
ALIASES = "shopt -s expand_aliases\n"
SHELL_STATE: list[tuple[str, list[tuple[str, str, str]]]] = [
    (
        "`rm -rf build`",
        [
            ('f() { shift; "$@"; }; f x rm -rf build', R, S),
            ('f() { shift; "$@"; }; f rm -rf build', A, N),
            (
                'retry() { local n=$1; shift; for i in $(seq $n); do "$@" && break; done; }; '
                "retry 3 rm -rf build",
                R,
                S,
            ),
            ('x() { shift 2; "$@"; }; x a b rm -rf build', R, S),
            ('x() { shift 2; "$@"; }; x a rm -rf build', A, N),
            ('set -- x rm -rf build; shift; "$@"', R, S),
            ('set -- x rm -rf build; if false; then shift; fi; "$@"', A, N),
            ('n=1; set -- x rm -rf build; shift $n; "$@"', R, S),
            ('f() { local a=$1; shift; "$a" "$@"; }; f rm -rf build', R, S),
            ('f() { ( shift; "$@" ); }; f x rm -rf build', R, S),
            ('f() { "$@"; }; g() { shift; f "$@"; }; g x rm -rf build', R, S),
            ("f() { c=rm; $c -rf build; }; f", R, S),
            ("f() { c=rm; }; g() { $c -rf build; }; g", A, N),
            ('g() { "${@:2}"; }; g x rm -rf build', R, S),
            ('g() { "${@:3}"; }; g x rm -rf build', A, N),
            ('a=(x rm -rf build); "${a[@]:1}"', R, S),
            ('a=(x rm -rf build); "${a[@]:2}"', A, N),
            ('a=(rm -rf build x); "${a[@]:0:3}"', R, S),
            ('a=(rm -rf build x); "${a[@]:0:4}"', A, N),
            (ALIASES + "alias s='nice '\nalias r='rm -rf'\ns r build", R, S),
            (ALIASES + "alias s='nice'\nalias r='rm -rf'\ns r build", A, N),
            (ALIASES + "alias s='nice ' n='nice '\nalias r='rm -rf'\ns n r build", R, S),
            (ALIASES + "alias t='time '\nalias d='rm -rf'\nt d build", R, S),
            (ALIASES + "alias r='rm -rf'\ntime r build", R, S),
            (ALIASES + "alias r='rm -rf'\ntime 'r' build", A, N),
            (ALIASES + "alias r='rm -rf'\neval r build", R, S),
            (ALIASES + "alias r='rm -rf'\neval 'echo x; r build'", R, S),
            (ALIASES + "alias r='rm -rf'\neval 'echo r build'", A, N),
            (ALIASES + "alias w=r r='rm -rf'\nw build", R, S),
            (ALIASES + "alias x='true; r build' r='rm -rf'\nx", R, S),
            (ALIASES + "alias r='rm -rf'; r build", A, N),
            ("time { rm -rf build; }", R, S),
            ("time -p { rm -rf build; }", R, S),
            ("! { rm -rf build; }", R, S),
            ("time if true; then rm -rf build; fi", R, S),
            ('time for d in build; do rm -rf "$d"; done', R, S),
            ("true | time { rm -rf build; }", A, N),
            ("time true | { rm -rf build; }", R, S),
            ("time { time { rm -rf build; }; }", R, S),
            ("time { rm -rf build.old; }", A, N),
            ("echo time { rm -rf build; }", A, N),
            ("read -r c <<< 'rm -rf build'; $c", R, S),
            ("read -r p a <<< 'rm -rf build'; $p $a", R, S),
            ("read -r p a <<< 'rm -rf build'; $p $p", A, N),
            ("read <<< 'rm -rf build'; $REPLY", R, S),
            ("read -r c <<'EOF'\nrm -rf build\nEOF\n$c", R, S),
            ("read -r c <<< 'rm -rf build.old'; $c", A, N),
            ("( read -r c <<< 'rm -rf build' ); $c", A, N),
            ("printf -v c '%s -rf %s' rm build; $c", R, S),
            ("printf -v c '%s %s' rm -rf build; $c", A, N),
            ("D=build; printf -v c 'rm -rf %s' \"$D\"; $c", R, S),
            ("printf -v c 'rm -rf %s' build; echo $c", A, N),
            ("printf -v c 'rm -rf build\\n'; $c", R, S),
            ("c=$(printf 'rm -rf %s' build); $c", R, S),
            ("c=$(echo rm -rf build); $c", R, S),
            ('c="$(echo rm -rf build)"; $c', R, S),
            ("c=`echo rm -rf build`; $c", R, S),
            ("c=$(echo -n rm -rf build); $c", R, S),
            ("D=build; c=$(echo rm -rf $D); $c", R, S),
            ("c=$(echo rm -rf build.old); $c", A, N),
            ("c=$(echo rm -rf build; echo x); $c", A, N),
            ("c=$(printf '%s %s' rm -rf build); $c", A, N),
            ("c=$(echo rm -rf build); echo $c", A, N),
        ],
    ),
]
CORPUS += SHELL_STATE

# Commands from agent transcripts that share no failed attempt above: all allowed.
UNRELATED = [
    "ls -la",
    "git status",
    "git diff --stat",
    "cat README.md | head -50",
    "rg -n 'def main' src/",
    "find . -name '*.py' | xargs wc -l | tail -1",
    "python -c 'import sys; print(sys.version)'",
    "sed -n 1,80p src/app.py",
    "grep -rn TODO src | head",
    "echo $PATH",
    "which go && go version",
    "npm --version",
    "docker ps -a",
    "kubectl get pods -n prod",
    "terraform fmt -recursive",
    "cargo fmt --all",
    "git log --oneline -10",
    "mkdir -p build && cp -r assets build/",
    "tail -n 100 /var/log/app.log",
    "wc -l docs/*.md",
]


def pairs() -> Iterator[Pair]:
    """Every labelled pair: the table above, then each unrelated command against each row."""
    for tried, commands in CORPUS:
        for command, label, kind in commands:
            yield Pair(tried, command, label, kind)
    for index, command in enumerate(UNRELATED):
        tried = CORPUS[index % len(CORPUS)][0]
        yield Pair(tried, command, A, T)


class Figures(NamedTuple):
    pairs: int
    refuse_labels: int
    refused: int
    true_refusals: int
    advised: int
    wrong: list[tuple[Pair, str]]  # refused against the label, or missed

    @property
    def precision(self) -> float:
        return self.true_refusals / self.refused if self.refused else 1.0

    @property
    def recall(self) -> float:
        return self.true_refusals / self.refuse_labels if self.refuse_labels else 1.0


def figures() -> Figures:
    """Run the check's matching on every pair (as ``check-command`` does), from an empty
    directory: a script a command runs is read where it lies, and here there is none."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)
        try:
            return _figures()
        finally:
            os.chdir(here)


def _figures() -> Figures:
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "src"))
    from rehydrate.agents.commands import attempts_in_cell, commands_in, match

    total = labels = refused = right = advised = 0
    wrong: list[tuple[Pair, str]] = []
    for pair in pairs():
        total += 1
        verdict = None
        for attempt in attempts_in_cell(pair.tried):
            for candidate in commands_in(pair.command.replace("{root}", os.getcwd())):
                kind = match(candidate, attempt)
                if kind == "exact" or (kind and verdict is None):
                    verdict = kind
        labels += pair.label == R
        if verdict == "exact":
            refused += 1
            right += pair.label == R
            if pair.label != R:
                wrong.append((pair, "refused"))
        else:
            advised += verdict == "close"
            if pair.label == R:
                wrong.append((pair, "missed"))
    return Figures(total, labels, refused, right, advised, wrong)


def main() -> int:
    found = figures()
    print(
        f"{found.pairs} pairs, {found.refuse_labels} labelled refuse; refused {found.refused}, "
        f"{found.true_refusals} rightly; advised {found.advised}\n"
        f"precision {found.precision:.3f}  recall {found.recall:.3f}"
    )
    for pair, what in found.wrong:
        print(f"  {what}: {pair.command!r}  (row {pair.tried}, {pair.kind})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
