"""``digests`` gives hashlib's digests, without loading OpenSSL on the hooks' path."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys

import pytest

from rehydrate import digests


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 1000, 1 << 20])
def test_the_digests_are_hashlibs(size: int) -> None:
    data = random.Random(size).randbytes(size)
    assert digests.sha1(data).hexdigest() == hashlib.sha1(data).hexdigest()
    assert digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    split = digests.sha256()
    split.update(data[: size // 2])
    split.update(data[size // 2 :])
    assert split.hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_blob_id_is_gits() -> None:
    from rehydrate.git import hash_blob

    data = b"# Failed attempts\n"
    out = subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True)
    assert hash_blob(data) == out.stdout.decode().strip()


def test_no_openssl_is_loaded() -> None:
    code = "import sys; from rehydrate import digests; print('_hashlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
