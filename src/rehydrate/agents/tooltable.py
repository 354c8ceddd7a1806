"""What the command check knows about each tool: ONE table, data only (docs/check-command.md).

A row says how a tool's command line is built, so that two spellings of one invocation
compare equal and two different invocations do not:

* ``depth``: how many subcommand words follow the program (``git push``: 1, ``make``: 0),
  and ``nested``: the subcommands that take one more (``git stash pop``, ``docker
  compose up``); ``subcommands`` maps a subcommand's other names to one (``npm i``);
* ``options``: the spellings of one option (``-f --force``); the last is its name;
  a spelling scoped to one subcommand is written ``push: -n --dry-run``;
* ``valued``: the options that take a value (``-m`` in ``git commit -m msg``), so
  ``--tags=musl`` and ``--tags musl`` are one option, and the word after ``-m`` is no
  positional argument; clusters (``-fr``, ``-j4``, ``-Eu root``) are split by it;
* ``cosmetic``: options that change what is printed or how fast, not what runs;
* ``style``: ``posix`` (short options cluster) or ``go`` (``-name`` and ``--name`` are
  one option, never a cluster: Go's flag package, also terraform's);
* ``paths``: subcommand paths that run the same (``npm run test`` is ``npm test``);
* ``checks``: the subcommand paths (for ``make``, the targets) that run the project's
  tests, so that capture tells a failing check from a failed approach (``""``: the
  tool itself is a test runner);
* ``stops``: subcommand paths whose first argument ends the tool's own options: what
  follows belongs to what it runs (``docker run IMAGE --rm``, ``go run . -v``,
  ``python script.py -x``), so it is compared in order, as written;
* ``files``: the subcommand paths whose positional arguments are paths (``""``: the tool
  itself, ``rm``, ``pytest``; ``build`` for ``docker build ./``), and ``path_values``
  the options whose value is one (``pip -r``): ``build``, ``build/``, ``./build`` and
  ``build//`` are one path (never for a tool whose words may be names: ``pip install
  ./pkg`` is not ``pip install pkg``, ``make build/`` not ``make build``);
* ``numeric``: options whose value is optional and a number (``make -j deploy``: ``-j``
  takes no value, ``make -j 4 deploy`` takes ``4``);
* ``flags_env``: the variable whose value the tool reads as options given first
  (``GOFLAGS=-tags=musl go test`` is ``go test -tags=musl``);
* ``forcing``: subcommand paths where a ``+`` before every ref (``git push origin +main``)
  is the option named (``--force``); a ``+`` on some refs only forces those, as written;
* ``cosmetic_values``: option values that make the option cosmetic (``git -c
  core.pager=cat``, ``-c color.ui=never``): option name -> value prefixes;
* ``kinds``: other names of what the first argument names (``kubectl delete pods web-0``,
  ``po web-0`` and ``pod/web-0`` are ``pod web-0``);
* ``chdir``: options that run the tool in another directory (``make -C web``, ``git -C
  dir``, ``terraform -chdir=dir``): part of where it runs, so ``make -C web deploy`` is
  ``cd web && make deploy`` (and ``git -C .`` is plain ``git``);
* ``config_env``: the prefix of the variables the tool reads as its options (npm's
  ``npm_config_legacy_peer_deps=true`` is ``--legacy-peer-deps``; any case);
  ``flags_env`` may name several variables, ``{sub}`` standing for the subcommand
  (terraform's ``TF_CLI_ARGS`` and ``TF_CLI_ARGS_apply``);
* ``switches``: an option with one value that is another option (``cargo --profile
  release`` is ``--release``, ``pytest --maxfail=1`` is ``--exitfirst``);
* ``images``: options whose value is an image name, ``:latest`` its default tag;
* ``scripts``: the subcommand that runs a project script the tool also runs by its
  name alone (``yarn run build`` is ``yarn build``), except for the tool's own
  subcommands (``builtins``);
* ``longs``: for a program whose option parser takes a long option abbreviated to a
  unique prefix (GNU getopt_long, Python's optparse, git's parse-options), the
  *complete* list of its long options, per subcommand (``""``: the program itself, or
  the options before the subcommand): ``rm --rec --for build`` is ``rm -rf build``.
  A prefix is an option only when no other option in the list starts with it (``git
  push --forc``: ``--force``, ``--force-with-lease`` ... errors); a subcommand with no
  list, or a tool without one (Go's flag package, cobra, clap, pytest's argparse with
  ``allow_abbrev=False``), keeps every spelling as written. Each list is the program's
  own (its ``--help``, ``-h`` or completion helper), with the version it came from;
  ``"*"``: every subcommand without a list of its own, and before the subcommand (npm's
  config keys, read by one parser wherever they are written);
* ``strict``: its parser refuses a value given to a switch (git's parse-options, GNU
  getopt_long, optparse, argparse, clap: ``git push --force=true`` is git's error), so
  ``--force=true`` stays as written; for the others (npm's nopt, Go's flag, cobra's
  pflag, and a tool not in the table) ``--legacy-peer-deps=true`` is the switch itself.
* ``defaults``: options whose value, a path where the command runs, is what the tool
  uses when the option is not given (``git --git-dir=.git`` is ``git``): dropped then.
* ``implied``: a switch another one given with it already does (``rm -rfd``: ``-r``
  removes empty directories too; ``cp -aR``: ``-a`` copies recursively): dropped then.

A tool that is not in the table is compared on its words as written (the generic row):
flags as a set (one written ``--name=value`` in either command takes a value), the
generic cosmetic flags dropped, every other word a positional argument in order, the
first one standing for its subcommand.
Adding a tool is adding a row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from ..patterns import compiled
from ..records import NamedTuple


class Tool(NamedTuple):
    depth: int  # subcommand words after the program
    nested: frozenset[str]  # subcommands that take one more subcommand word
    subcommands: Mapping[str, str]  # another name of a subcommand -> its name
    names: Mapping[str, str]  # an option's spelling ("-f", "push: -n") -> its name
    valued: frozenset[str]  # option names (and scoped "sub: name") that take a value
    cosmetic: frozenset[str]  # option names that do not change what runs
    style: str  # "posix" | "go" | "words" (unknown tool: as written)
    paths: Mapping[tuple[str, ...], tuple[str, ...]] = {}  # ("run", "test") -> ("test",)
    stops: frozenset[str] = frozenset()  # paths whose first argument ends the options
    checks: frozenset[str] = frozenset()  # paths (or make targets) that run the tests
    files: frozenset[str] = frozenset()  # paths whose positionals are paths: `build/` is `build`
    path_values: frozenset[str] = frozenset()  # option names whose value is a path
    numeric: frozenset[str] = frozenset()  # options taking a value only when it is a number
    flags_env: str = ""  # the variable read as options given first (GOFLAGS)
    forcing: Mapping[str, str] = {}  # path -> option a `+` before every ref spells
    cosmetic_values: Mapping[str, tuple[str, ...]] = {}  # option -> value prefixes
    kinds: Mapping[str, str] = {}  # another name of the first argument's kind -> its name
    chdir: frozenset[str] = frozenset()  # options naming the directory it runs in
    config_env: str = ""  # lower-case prefix of variables read as options (npm_config_)
    switches: Mapping[tuple[str, str], str] = {}  # (option, value) -> the switch it is
    images: frozenset[str] = frozenset()  # options whose value is an image (`:latest`)
    scripts: str = ""  # the subcommand that runs a script (`yarn run build` = `yarn build`)
    builtins: frozenset[str] = frozenset()  # subcommands no script name stands for
    longs: Mapping[str, frozenset[str]] = {}  # subcommand -> all its long options ("--x")
    strict: bool = False  # a switch given a value (`--force=true`) is the program's error
    defaults: Mapping[str, str] = {}  # option -> the path it names by default (`--git-dir`)
    implied: Mapping[str, str] = {}  # option -> an option that does it too (`rm -rd`: `-r`)

    def name(self, spelling: str, sub: str = "") -> str:
        """The option's name: its last spelling (``-f`` -> ``--force``)."""
        if self.style == "go":
            spelling = "-" + spelling.lstrip("-")
        return self.names.get(f"{sub}: {spelling}") or self.names.get(spelling) or spelling

    def takes_value(self, name: str, sub: str = "") -> bool:
        return name in self.valued or f"{sub}: {name}" in self.valued


# Printed output, speed, colour, paging: never what runs (for tools not in the table too).
GENERIC_COSMETIC = frozenset(
    "-v -vv -vvv --verbose -q -qq --quiet -s --silent -h --help --version --color --colour"
    " --no-color --no-colour --progress --no-progress --debug -count --count -j --jobs"
    " --parallel --json --pager --no-pager".split()
)
# Environment variables that do not change what a command does, only how it prints.
COSMETIC_ENV = frozenset(
    "PATH LANG LC_ALL LC_CTYPE PAGER GIT_PAGER TERM NO_COLOR FORCE_COLOR CLICOLOR COLUMNS"
    " LINES PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE TF_LOG GIT_TERMINAL_PROMPT".split()
)
# Other names of one program (after the base name is taken): pip3 -> pip.
_VERSIONED = r"^(python|pip|pytest|node)[0-9][0-9.]*+$"
PROGRAMS: Mapping[str, str] = {"py.test": "pytest", "nodejs": "node", "gmake": "make"}
# Programs that are another program's subcommand: `docker-compose up` is `docker compose up`.
SUBCOMMAND_OF: Mapping[str, tuple[str, ...]] = {"docker-compose": ("docker", "compose")}


def program_name(base: str) -> str:
    """One name per program: ``pip3.12`` is ``pip``, ``py.test`` is ``pytest``."""
    versioned = compiled(_VERSIONED).match(base)
    if versioned:
        return versioned[1]
    return PROGRAMS.get(base, base)


def _tool(
    *,
    depth: int = 1,
    nested: str = "",
    subcommands: Mapping[str, str] | None = None,
    options: Iterable[str] = (),
    valued: str = "",
    cosmetic: str = "",
    style: str = "posix",
    paths: Mapping[tuple[str, ...], tuple[str, ...]] | None = None,
    stops: str | None = None,
    checks: str | None = None,
    files: str | None = None,
    path_values: str = "",
    numeric: str = "",
    flags_env: str = "",
    forcing: Mapping[str, str] | None = None,
    cosmetic_values: Mapping[str, tuple[str, ...]] | None = None,
    kinds: Mapping[str, str] | None = None,
    chdir: str = "",
    config_env: str = "",
    switches: Mapping[tuple[str, str], str] | None = None,
    images: str = "",
    scripts: str = "",
    builtins: str = "",
    longs: Mapping[str, str] | None = None,
    strict: bool = False,
    defaults: Mapping[str, str] | None = None,
    implied: Mapping[str, str] | None = None,
) -> Tool:
    names: dict[str, str] = {}
    for group in options:
        scope, _, spellings = group.rpartition(": ")
        words = spellings.split()
        for word in words:
            names[f"{scope}: {word}" if scope else word] = words[-1]

    def named(text: str) -> frozenset[str]:
        out = set()
        for item in text.split(","):
            scope, _, spellings = item.strip().rpartition(": ")
            for word in spellings.split():
                name = names.get(f"{scope}: {word}") or names.get(word) or word
                if style == "go":
                    name = names.get("-" + word.lstrip("-"), "-" + word.lstrip("-"))
                out.add(f"{scope}: {name}" if scope else name)
        return frozenset(out)

    return Tool(
        depth,
        frozenset(nested.split()),
        subcommands or {},
        names,
        named(valued),
        named(cosmetic),
        style,
        paths or {},
        _paths(stops),
        _paths(checks),
        _paths(files),
        named(path_values),
        named(numeric),
        flags_env,
        {path: _one(names, option) for path, option in (forcing or {}).items()},
        {_one(names, o): v for o, v in (cosmetic_values or {}).items()},
        kinds or {},
        named(chdir),
        config_env,
        {(_one(names, o), v): _one(names, n) for (o, v), n in (switches or {}).items()},
        named(images),
        scripts,
        frozenset(builtins.split()),
        {sub: frozenset("--" + w for w in text.split()) for sub, text in (longs or {}).items()},
        strict,
        {_one(names, o): v for o, v in (defaults or {}).items()},
        {_one(names, o): _one(names, by) for o, by in (implied or {}).items()},
    )


def _kinds(text: str) -> dict[str, str]:
    """``"pod pods po, ..."``: each name -> the first."""
    return {name: group.split()[0] for group in text.split(",") for name in group.split()}


def _one(names: Mapping[str, str], spelling: str) -> str:
    return names.get(spelling, spelling)


def _paths(text: str | None) -> frozenset[str]:
    """``"run, exec"`` as a set; ``""`` is the tool itself; None nothing."""
    return frozenset(p.strip() for p in text.split(",")) if text is not None else frozenset()


# npm's options: every config key of npm 11.19.1 (`npm config ls -l --json`) and its
# long shorthands (@npmcli/config's `shorthands`). nopt, its parser, takes an unambiguous
# prefix of a key, before or after the subcommand (`npm install --legacy-peer` is
# `--legacy-peer-deps`, with a warning that a later major version stops it); an ambiguous
# one is an unknown config of its own (`--legacy`). A shorthand spelled whole is the
# shorthand (`--local` is `--no-global`, not a prefix of `--local-address`), so they are
# in the list: a prefix of one is ambiguous here (`--he`: `--heading`, `--help`), a miss
# at worst.
_NPM_CONFIG = (
    "dd ddd desc enjoy-by help iwr local no porcelain quiet readonly reg silent verbose ws "
    "access all allow-directory allow-file allow-git allow-remote allow-same-version"
    " allow-scripts allow-scripts-pending allow-scripts-pin also audit audit-level"
    " auth-type before bin-links browser bypass-2fa ca cache cache-max cache-min"
    " cafile call cert cidr color commit-hooks cpu dangerously-allow-all-scripts depth"
    " description dev diff diff-dst-prefix diff-ignore-all-space diff-name-only"
    " diff-no-prefix diff-src-prefix diff-text diff-unified dry-run editor"
    " engine-strict expect-result-count expect-results expires fetch-retries"
    " fetch-retry-factor fetch-retry-maxtimeout fetch-retry-mintimeout fetch-timeout"
    " force foreground-scripts format-package-lock fund git git-tag-version global"
    " global-style globalconfig heading https-proxy if-present ignore-scripts include"
    " include-attestations include-staged include-workspace-root init-author-email"
    " init-author-name init-author-url init-license init-module init-private init-type"
    " init-version init.author.email init.author.name init.author.url init.license"
    " init.module init.version install-links install-strategy json key legacy-bundling"
    " legacy-peer-deps libc link local-address location lockfile-version loglevel"
    " logs-dir logs-max long maxsockets message min-release-age"
    " min-release-age-exclude name node-gyp node-options nodedir noproxy npm-version"
    " offline omit omit-lockfile-registry-resolved only optional orgs orgs-permission"
    " os otp pack-destination package package-lock package-lock-only packages"
    " packages-all packages-and-scopes-permission parseable prefer-dedupe"
    " prefer-offline prefer-online prefix preid production progress provenance"
    " provenance-file proxy read-only rebuild-bundle registry replace-registry-host"
    " save save-bundle save-dev save-exact save-optional save-peer save-prefix"
    " save-prod sbom-format sbom-type scope scopes script-shell searchexclude"
    " searchlimit searchopts searchstaleness shell shrinkwrap sign-git-commit"
    " sign-git-tag strict-allow-scripts strict-peer-deps strict-ssl tag"
    " tag-version-prefix timing token-description umask unicode update-notifier usage"
    " user-agent userconfig version versions viewer which workspace workspaces"
    " workspaces-update yes"
)


# pip's general options (the union of pip 23.2.1's and pip 26.3's main parsers): `pip -h`,
# hidden ones too.
_PIP_GENERAL = (
    "cache-dir cert client-cert debug default-timeout disable-pip-version-check exists-action"
    " help isolated keyring-provider local-log log log-file no-cache-dir no-color no-input"
    " no-proxy-env no-python-version-warning proxy python quiet require-venv"
    " require-virtualenv resume-retries retries timeout trusted-host use-deprecated use-feature"
    " verbose version"
)

_ROWS: dict[str, Callable[[], Tool]] = {
    "git": lambda: _tool(
        nested="remote stash submodule worktree notes bisect lfs sparse-checkout reflog",
        options=[
            "-f --force",
            "-u --set-upstream",
            "push: -n --dry-run",
            "commit: -n --no-verify",
            "-m --message",
            "-a --all",
            "-b --branch",
            "-p --patch",
            "-i --interactive",
            "-F --file",
            "-d --delete",
            "-D --force-delete",
            "-A --all",
            "-r --recursive",
            "-x --exec",
            "-P --no-pager",
        ],
        valued="-C -c --git-dir --work-tree --namespace --message --file --branch --depth"
        " -o --push-option --exec --onto --strategy -X --author --date --format --since"
        " --until --grep --pretty, checkout: -B, switch: -c -C, reset: --pathspec-from-file",
        cosmetic="-v --verbose -q --quiet --progress --no-progress --color --no-color --stat"
        " --no-pager --porcelain",
        forcing={"push": "--force"},
        chdir="-C",
        # `--git-dir=.git` where the command runs: the repository git finds there anyway
        # (from a directory without `.git` it is git's error, and runs nothing)
        defaults={"--git-dir": ".git"},
        # `-c NAME=VALUE` settings that change only what is printed
        cosmetic_values={
            "-c": ("core.pager=", "color.", "pager.", "advice.", "column.", "core.quotepath=")
        },
        # git 2.39.5, `git push --git-completion-helper-all` (hidden and --no- forms too)
        strict=True,
        longs={
            "push": "all atomic delete dry-run exec follow-tags force force-if-includes"
            " force-with-lease ipv4 ipv6 mirror no-all no-atomic no-delete no-dry-run no-exec"
            " no-follow-tags no-force no-force-if-includes no-force-with-lease no-ipv4"
            " no-ipv6 no-mirror no-porcelain no-progress no-prune no-push-option no-quiet"
            " no-receive-pack no-recurse-submodules no-repo no-set-upstream no-signed"
            " no-tags no-thin no-verbose no-verify porcelain progress prune push-option quiet"
            " receive-pack recurse-submodules repo set-upstream signed tags thin verbose"
            " verify help help-all",
            "commit": "ahead-behind all allow-empty allow-empty-message amend author branch"
            " cleanup date dry-run edit file fixup gpg-sign include interactive long message"
            " no-ahead-behind no-all no-allow-empty no-allow-empty-message no-amend"
            " no-author no-branch no-cleanup no-date no-dry-run no-edit no-file no-fixup"
            " no-gpg-sign no-include no-interactive no-long no-message no-null no-only"
            " no-patch no-pathspec-file-nul no-pathspec-from-file no-porcelain"
            " no-post-rewrite no-quiet no-reedit-message no-reset-author no-reuse-message"
            " no-short no-signoff no-squash no-status no-template no-untracked-files"
            " no-verbose no-verify null only patch pathspec-file-nul pathspec-from-file"
            " porcelain post-rewrite quiet reedit-message reset-author reuse-message short"
            " signoff squash status template trailer untracked-files verbose verify help"
            " help-all",
        },
    ),
    "go": lambda: _tool(
        nested="mod work tool env",
        stops="run",
        checks="test",
        options=["-C -chdir"],
        valued="tags run skip count timeout o p ldflags gcflags asmflags mod bench benchtime"
        " cpu coverprofile covermode coverpkg exec parallel shuffle toolexec chdir overlay"
        " pgo buildmode compiler installsuffix modfile",
        cosmetic="-v -x -json -count -p -parallel -a",  # not -n: it prints, runs nothing
        style="go",
        flags_env="GOFLAGS",
        chdir="-chdir",
    ),
    "pip": lambda: _tool(
        options=[
            "-e --editable",
            "-r --requirement",
            "-c --constraint",
            "-U --upgrade",
            "-t --target",
            "-i --index-url",
            "-I --ignore-installed",
            "-y --yes",
            "-f --find-links",
        ],
        valued="--editable --requirement --constraint --target --index-url --extra-index-url"
        " --find-links --prefix --root --python --platform --only-binary --no-binary"
        " --config-settings -C --progress-bar --log --cache-dir --timeout --retries"
        " --resume-retries --build-constraint --requirements-from-script --group"
        " --all-releases --only-final --refresh-package --uploaded-prior-to",
        # not --no-cache-dir, --timeout, --retries: each the workaround for some failure
        cosmetic="-v --verbose -q --quiet --no-color --disable-pip-version-check"
        " --no-input --progress-bar --log",
        path_values="--requirement --constraint --editable",
        config_env="pip_",  # PIP_NO_CACHE_DIR=1 is --no-cache-dir (pip's config docs)
        # pip 23.2.1 and pip 26.3 (optparse), every long option of their parsers, hidden
        # ones too: the general options (before the subcommand, and after `install` as
        # well) and install's; a superset is safe, a newer pip's option is added here
        strict=True,
        longs={
            "": _PIP_GENERAL,
            "install": _PIP_GENERAL + " abi all-releases break-system-packages"
            " build-constraint check-build-dependencies compile config-settings constraint"
            " dry-run editable extra-index-url find-links force-reinstall global-option"
            " group ignore-installed ignore-requires-python implementation index-url"
            " no-binary no-build-isolation no-clean no-compile no-dependencies no-deps"
            " no-index no-require-hashes no-use-pep517 no-user no-warn-conflicts"
            " no-warn-script-location only-binary only-dependencies only-deps only-final"
            " platform pre prefer-binary prefix progress-bar pypi-url python-version"
            " refresh-package report require-hashes requirement requirements-from-script"
            " root root-user-action source source-dir source-directory src target"
            " upgrade upgrade-strategy uploaded-prior-to use-pep517 user",
        },
    ),
    "python": lambda: _tool(depth=0, valued="-m -c -W -X", cosmetic="-u -B -q", stops=""),
    "node": lambda: _tool(depth=0, valued="-r --require -e --eval --import", stops=""),
    "npm": lambda: _tool(
        nested="run run-script exec",
        # npm 11.19.1, lib/utils/cmd-list.js: its aliases of the commands this row knows
        subcommands={
            **dict.fromkeys(
                "i in ins inst insta instal isnt isnta isntal isntall add".split(), "install"
            ),
            **dict.fromkeys("un unlink remove rm r".split(), "uninstall"),
            **dict.fromkeys("clean-install ic install-clean isntall-clean".split(), "ci"),
            **dict.fromkeys("u up upgrade udpate".split(), "update"),
            **dict.fromkeys("run-script rum urn".split(), "run"),
            **dict.fromkeys("t tst".split(), "test"),
            "list": "ls",
            "la": "ll",
            "x": "exec",
            "ln": "link",
            "it": "install-test",
            "cit": "install-ci-test",
            "clean-install-test": "install-ci-test",
            "sit": "install-ci-test",
            "rb": "rebuild",
            "ddp": "dedupe",
            "why": "explain",
            "c": "config",
            "create": "init",
            "innit": "init",
            "info": "view",
            "show": "view",
            "v": "view",
        },
        paths={("run", name): (name,) for name in ("test", "start", "stop", "restart")},
        checks="test",
        options=["-D --save-dev", "-g --global", "-f --force", "-w --workspace", "-y --yes"],
        valued="--workspace --prefix --registry --tag --loglevel --cache --userconfig",
        config_env="npm_config_",
        cosmetic="-s --silent -q --quiet -d --loglevel --no-fund --no-audit --progress"
        " --no-progress --color --no-color --verbose --foreground-scripts",
        longs={"*": _NPM_CONFIG},
    ),
    "pnpm": lambda: _tool(
        nested="run exec",
        checks="test, run test",
        # pnpm's commandNames: install [i], remove [uninstall rm un uni], test [t tst]
        subcommands={
            "i": "install",
            **dict.fromkeys("uninstall rm un uni".split(), "remove"),
            **dict.fromkeys("t tst".split(), "test"),
        },
        options=[
            "-D --save-dev",
            "-w --workspace-root",
            "-F --filter",
            "-C --dir",
            "-r --recursive",
        ],
        valued="--filter --dir --reporter --registry",
        chdir="--dir",
        cosmetic="-s --silent --reporter --color --no-color --loglevel",
    ),
    "yarn": lambda: _tool(
        nested="run workspace",
        stops="run, exec, dlx, node",
        checks="test, run test",
        options=["-D --dev", "-W --ignore-workspace-root-check"],
        valued="--cwd --registry --network-timeout",
        chdir="--cwd",
        scripts="run",
        builtins="add bin cache config create dlx exec info init install link node pack"
        " patch publish rebuild remove unlink up upgrade version why workspace workspaces",
        cosmetic="-s --silent --verbose --no-progress --non-interactive --network-timeout",
    ),
    "npx": lambda: _tool(
        depth=0, options=["-y --yes", "-p --package"], valued="--package", stops=""
    ),
    "make": lambda: _tool(
        depth=0,
        checks="test, tests, check, unit, unittest, test-unit, integration",
        options=[
            "-C --directory",
            "-f --file --makefile",
            "-j --jobs",
            "-k --keep-going",
            "-n --just-print --dry-run --recon",
            "-B --always-make",
            "-e --environment-overrides",
            "-i --ignore-errors",
            "-l --load-average",
            "-O --output-sync",
        ],
        valued="--directory --makefile --jobs --load-average -I --include-dir -o -W",
        cosmetic="--jobs --load-average --output-sync -s --silent --quiet -w"
        " --print-directory --no-print-directory --debug",
        numeric="--jobs --load-average",
        path_values="--directory --makefile",
        chdir="--directory",
        flags_env="MAKEFLAGS",
        # GNU Make 4.3, `make --help` and main.c's hidden jobserver-auth, jobserver-fds,
        # sync-mutex; 4.4's shuffle and jobserver-style too (a prefix unique in both)
        strict=True,
        longs={
            "": "always-make assume-new assume-old check-symlink-times debug directory"
            " dry-run environment-overrides eval file help ignore-errors include-dir jobs"
            " just-print keep-going load-average makefile max-load new-file no-builtin-rules"
            " no-builtin-variables no-keep-going no-print-directory no-silent old-file"
            " output-sync print-data-base print-directory question quiet recon silent stop"
            " touch trace version warn-undefined-variables what-if jobserver-auth"
            " jobserver-fds sync-mutex shuffle jobserver-style"
        },
    ),
    "cargo": lambda: _tool(
        nested="nextest",
        strict=True,  # clap: `--release=true` is an error
        # cargo 1.95.0, `cargo --list`: its built-in aliases
        subcommands={
            "b": "build",
            "c": "check",
            "t": "test",
            "r": "run",
            "d": "doc",
            "rm": "remove",
        },
        checks="test, nextest run",
        options=[
            "-p --package",
            "-r --release",
            "-F --features",
            "-j --jobs",
            "-Z",
        ],
        valued="--package --features --target --target-dir --manifest-path --bin --example"
        " --test --bench --jobs --profile --config -Z --color --message-format",
        cosmetic="-v --verbose -q --quiet --jobs --color --message-format --timings",
        switches={("--profile", "release"): "--release"},
    ),
    "docker": lambda: _tool(
        nested="compose image container volume network buildx system builder context"
        " plugin manifest trust swarm service stack secret config node",
        stops="run, exec, create, container run, container exec, container create,"
        " compose run, compose exec",
        subcommands={"builder": "buildx"},
        paths={
            **{("container", n): (n,) for n in "run exec create start stop rm logs ps".split()},
            **{("image", n): (n,) for n in "build pull push rm tag".split()},
            ("image", "ls"): ("images",),
            ("container", "ls"): ("ps",),
        },
        options=[
            "-t --tag",
            "-f --file",
            "-e --env",
            "-v --volume",
            "-p --publish",
            "-d --detach",
            "-i --interactive",
            "-t --tty",
            "build: -t --tag",
            "-w --workdir",
            "-u --user",
            "-H --host",
            "-c --context",
        ],
        valued="--tag --file --env --env-file --volume --publish --workdir --user --name"
        " --network --platform --build-arg --target --entrypoint --mount --label --host"
        " --context --config --log-level --cpus --memory -m --restart --cache-from --progress",
        cosmetic="-q --quiet --progress --log-level",
        files="build, buildx build",  # the build context: `docker build ./` is `docker build .`
        path_values="--file --env-file",
        images="--tag",
    ),
    "kubectl": lambda: _tool(
        nested="rollout config create set auth top certificate cluster-info",
        stops="exec, run, debug",
        options=[
            "-n --namespace",
            "-f --filename",
            "-o --output",
            "-l --selector",
            "-A --all-namespaces",
            "-c --container",
            "-k --kustomize",
            "-i --stdin",
            "-t --tty",
            "-v --v",
        ],
        valued="--v --namespace --filename --output --selector --container --context --cluster"
        " --kubeconfig --user --kustomize --field-selector --image --replicas --timeout"
        " --server -s --token --as --request-timeout --sort-by",
        cosmetic="--v --output -w --watch --no-headers --show-labels --request-timeout",
        path_values="--filename --kustomize",
        kinds=_kinds(
            "pod pods po, deployment deployments deploy, service services svc,"
            " namespace namespaces ns, configmap configmaps cm, secret secrets,"
            " node nodes no, job jobs, cronjob cronjobs cj, ingress ingresses ing,"
            " statefulset statefulsets sts, daemonset daemonsets ds,"
            " replicaset replicasets rs, persistentvolumeclaim persistentvolumeclaims pvc"
        ),
    ),
    "pytest": lambda: _tool(
        depth=0,
        checks="",
        options=[
            "-x --exitfirst",
            "-k",
            "-m",
            "-p",
            "-n --numprocesses",
            "-c --config-file",
            "-r",
            "-l --showlocals",
            "--lf --last-failed",
            "--ff --failed-first",
        ],
        valued="-k -m -p --capture --numprocesses --config-file --rootdir --basetemp --maxfail"
        " --tb -r --durations --junitxml --cov --cov-report -o --override-ini"
        " --deselect --ignore --log-level --timeout --dist",
        cosmetic="-v -vv -vvv --verbose -q -qq --quiet -r --tb --durations --color"
        " --no-header --no-summary -s --capture --showlocals --numprocesses --dist"
        " --junitxml --cov-report",
        files="",
        path_values="--config-file --rootdir --deselect --ignore",
        flags_env="PYTEST_ADDOPTS",
        switches={("--maxfail", "1"): "--exitfirst"},
        strict=True,  # argparse: `--exitfirst=true` "ignored explicit argument"
    ),
    "terraform": lambda: _tool(
        nested="state workspace providers",
        valued="-chdir -var -var-file -target -out -lock-timeout -parallelism -backend-config"
        " -replace -state -input",
        cosmetic="-no-color -compact-warnings -json -parallelism -lock-timeout -input",
        style="go",
        chdir="-chdir",
        flags_env="TF_CLI_ARGS TF_CLI_ARGS_{sub}",
    ),
    "rm": lambda: _tool(
        depth=0,
        options=["-r -R --recursive", "-f --force", "-i --interactive", "-d --dir"],
        cosmetic="-v --verbose",
        files="",
        implied={"--dir": "--recursive"},  # -r removes directories, empty ones too
        # GNU coreutils 9.1, `rm --help` (its hidden ---presume-input-tty starts "---")
        strict=True,
        longs={
            "": "dir force help interactive no-preserve-root one-file-system preserve-root"
            " recursive verbose version"
        },
    ),
    "cp": lambda: _tool(
        depth=0,
        options=["-r -R --recursive", "-f --force", "-a --archive", "-p --preserve"],
        valued="-t --target-directory -S --suffix",
        cosmetic="-v --verbose",
        # -a is -dR --preserve=all: a -R or a bare -p more copies the same
        implied={"--recursive": "--archive", "--preserve": "--archive"},
        # GNU coreutils 9.1, `cp --help`; later versions' debug, keep-directory-symlink too
        strict=True,
        longs={
            "": "archive attributes-only backup context copy-contents dereference force help"
            " interactive link no-clobber no-dereference no-preserve no-target-directory"
            " one-file-system parents preserve recursive reflink remove-destination sparse"
            " strip-trailing-slashes suffix symbolic-link target-directory update verbose"
            " version debug keep-directory-symlink"
        },
    ),
}
# Test runners known only as such: what they run is the project's tests.
for _runner in "jest vitest mocha ava tox nox rspec phpunit ctest bats tap".split():
    _ROWS[_runner] = lambda: _tool(depth=0, checks="", style="words")


class _Table(Mapping[str, Tool]):
    """The rows, each built from its ``_tool`` call on first lookup: a command names one
    or two tools, and building all of them cost every hook call ~1 ms."""

    def __init__(self, rows: Mapping[str, Callable[[], Tool]]) -> None:
        self._rows = rows
        self._built: dict[str, Tool] = {}

    def __getitem__(self, program: str) -> Tool:
        row = self._built.get(program)
        if row is None:
            row = self._built[program] = self._rows[program]()
        return row

    def __contains__(self, program: object) -> bool:
        return program in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


TOOLS: Mapping[str, Tool] = _Table(_ROWS)
GENERIC = Tool(2, frozenset(), {}, {}, frozenset(), GENERIC_COSMETIC, "words")


def tool(program: str) -> Tool:
    """The row of ``program``, or the generic one."""
    return TOOLS.get(program, GENERIC)
