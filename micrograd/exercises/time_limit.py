"""A time limit on a block of Python code: ``time_limit(seconds)`` stops what runs in it.

``micrograd.exercises.check`` runs a student's forward and backward under it, so that an
endless loop is reported (which call, at which point) instead of hanging the notebook.

>>> import time
>>> try:
...     with time_limit(0.05):
...         while True:
...             time.sleep(0.001)
... except Interrupted:
...     print("stopped")
stopped
"""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["Interrupted", "time_limit"]


class Interrupted(BaseException):
    """Raised inside the code running under ``time_limit`` when it runs out of time.  A
    BaseException, as KeyboardInterrupt, so that an ``except Exception`` cannot swallow it."""


_running = threading.local()  # whether a limit is running on this thread: an inner call runs under it


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``Interrupted`` in the code running in the block once it has run ``seconds``.

    On the main thread (a script, a Jupyter kernel) SIGALRM does it: the handler raises
    between two bytecodes, and it also interrupts a sleeping call.  Elsewhere (another thread,
    Windows, or when a SIGALRM timer is already running for someone else) a watchdog thread
    raises the exception asynchronously in this thread (PyThreadState_SetAsyncExc), which
    stops any loop of Python code.  A call that ends just as the limit expires may still be
    reported as out of time: either way it took about the limit.
    """
    if seconds is None or getattr(_running, "active", False):
        yield
        return
    _running.active = True
    try:
        if (
            threading.current_thread() is threading.main_thread()
            and hasattr(signal, "setitimer")
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        ):
            with alarm(seconds):
                yield
        else:
            with watchdog(seconds):
                yield
    finally:
        _running.active = False


@contextmanager
def alarm(seconds: float) -> Iterator[None]:
    armed = [True]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:  # not once the block is over: the handler may run a few bytecodes late
            raise Interrupted

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        try:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0.0)
        finally:  # restored even when the alarm went off during the lines above
            signal.signal(signal.SIGALRM, previous)


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    set_async_exc = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc", None)
    if set_async_exc is None:  # not CPython: no way to stop a running thread, so no limit
        yield
        return
    target = ctypes.c_ulong(threading.get_ident())
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire() -> None:
        with lock:
            if not state["done"]:
                state["fired"] = True
                set_async_exc(target, ctypes.py_object(Interrupted))

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    raised = False
    try:
        yield
    except Interrupted:
        raised = True
        raise
    finally:
        with lock:
            state["done"] = True
        timer.cancel()
        if state["fired"] and not raised:
            # Sent just as the block ended: let it arrive here.  Never cancel it with
            # SetAsyncExc(id, NULL): CPython 3.11 then leaves its eval breaker set for good, and
            # code run under sys.setprofile loops forever.
            try:
                for _ in range(1_000_000):  # arrives at the first backward jump
                    pass
            except Interrupted:
                pass
