"""Where numba caches the compiled functions, for a user who can write neither the package nor a home cache."""

import os
import tempfile

import gamemarket


def _nowhere(tmp_path, monkeypatch):
    """Neither numba's choice can be written: the package (``os.access``) nor the user's cache (under a file)."""
    package = os.path.dirname(os.path.abspath(gamemarket.__file__))
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if os.fspath(p) == package else real(p, mode))
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)


def test_numbas_own_choice_is_kept_where_it_works(monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert gamemarket.numba_cache_dir() is None  # (this checkout's package folder is writable)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/somewhere")
    assert gamemarket.numba_cache_dir() is None  # the user's own setting


def test_a_user_who_cannot_write_numbas_caches_gets_a_private_folder(tmp_path, monkeypatch):
    """Hunt 16d-16: another user of a shared install, whose home is not writable: every command, even --version,
    was numba's "cannot cache function: no locator available", a 44-line traceback."""
    _nowhere(tmp_path, monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    where = gamemarket.numba_cache_dir()
    assert where == str(tmp_path / "tmp" / f"gamemarket-numba-{os.getuid()}")
    assert os.stat(where).st_mode & 0o777 == 0o700


def test_a_cache_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    """numba's cache is code it runs: a folder of the expected name that others may write is not taken."""
    _nowhere(tmp_path, monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    shared = tmp_path / "tmp" / f"gamemarket-numba-{os.getuid()}"
    shared.mkdir(parents=True)
    shared.chmod(0o777)
    where = gamemarket.numba_cache_dir()
    assert where != str(shared) and os.path.basename(where).startswith("gamemarket-numba-")
    assert os.stat(where).st_mode & 0o777 == 0o700
    os.rmdir(where)
