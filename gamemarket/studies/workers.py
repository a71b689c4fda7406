"""Worker processes that never outlive the run that started them.

joblib's loky workers finish the task in hand, and linger idle for minutes, after their parent
is killed (SIGKILL leaves it no chance to stop them); a worker that stores its own results would
go on writing them. Each task therefore starts, once per worker process, a daemon thread that
watches the parent and ends the worker as soon as the parent is gone, and a worker looks at the
parent once more before each write (:func:`parent_gone`), so a killed run stores nothing more.
"""

from __future__ import annotations

import os
import threading
import time

#: seconds between two looks at the parent
POLL_S = 0.5

_watched: int | None = None


def exit_with_parent(parent_pid: int | None) -> None:
    """In a worker: end this process (exit code 1) within ``POLL_S`` of ``parent_pid`` exiting.

    A no-op in the parent itself (a sequential run) and when already watching.
    """
    global _watched
    if parent_pid is None or parent_pid == os.getpid() or _watched == parent_pid:
        return
    _watched = parent_pid

    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:  # re-parented: the run that started us is gone
                os._exit(1)
            time.sleep(POLL_S)

    threading.Thread(target=watch, name="gamemarket-parent-watch", daemon=True).start()


def parent_gone(parent_pid: int | None) -> bool:
    """In a worker, just before it stores a result: whether the run that started it is gone (the worker is
    re-parented). The watch thread of :func:`exit_with_parent` looks only every ``POLL_S``; this look,
    taken at each write, keeps a killed run's workers from storing what they finished in between."""
    return parent_pid is not None and parent_pid != os.getpid() and os.getppid() != parent_pid
