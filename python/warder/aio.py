# SPDX-License-Identifier: MIT
"""The guard for asyncio hosts: every call runs in a worker thread, so the event loop is never
blocked by the disk, a command or a slow rule; ``ask`` and ``audit`` callbacks may be
coroutines, and then run on the host's loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from typing import Any, Callable, Optional, Sequence, Union

from ._types import AuditEvent, Decision, Entries, ExecResult, GrepResult, PathLike
from .backend import AsyncCall, Cancel, GuardedBackend, _tls_async, inner_can_execute
from .ruleset import Ruleset


class AsyncGuardedBackend:
    """The async face of a :class:`GuardedBackend` (same arguments, plus ``executor``: the
    thread pool the calls run in; default: the loop's).

    Cancelling a task that awaits a call waits for the call to end before the task sees
    ``CancelledError`` (so nothing happens behind the caller's back); a pending async
    ``ask`` is cancelled and declines, and a running :meth:`execute` is stopped: its
    command's process group is killed. ``execute`` exists when the inner backend can run
    commands.
    """

    def __new__(cls, inner: Any, ruleset: Ruleset, **kwargs: Any):
        if cls is AsyncGuardedBackend and inner_can_execute(inner):
            cls = _AsyncExecutingGuardedBackend
        return super().__new__(cls)

    def __init__(self, inner: Any, ruleset: Ruleset, *,
                 ask: Optional[Callable[..., Any]] = None,
                 audit: Optional[Callable[[AuditEvent], Any]] = None,
                 executor: Optional[concurrent.futures.Executor] = None,
                 **kwargs: Any) -> None:
        self.sync = GuardedBackend(inner, ruleset, ask=ask, audit=audit, **kwargs)
        self._executor = executor

    async def _run(self, fn: Callable[..., Any], *args: Any,
                   _cancel: Optional[Cancel] = None, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        call = AsyncCall(loop)

        def work() -> Any:
            _tls_async.call = call
            try:
                return fn(*args, **kwargs)
            finally:
                _tls_async.call = None

        fut = loop.run_in_executor(self._executor, work)
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            call.cancel()
            if _cancel is not None:
                _cancel.trigger()
            # The call runs on in its thread until it returns; report the cancellation only
            # then, whatever further cancellations arrive meanwhile.
            while not fut.done():
                try:
                    await asyncio.shield(fut)
                except asyncio.CancelledError:
                    continue
                except BaseException:  # noqa: B902 - its outcome is superseded by the cancel
                    break
            if fut.done() and not fut.cancelled():
                fut.exception()  # retrieved, so asyncio does not log it as never retrieved
            raise

    # ---- the operations (see Backend for each) -------------------------------------------

    async def read(self, path: PathLike, offset: int = 0, limit: int = 0, *,
                   approved: bool = False) -> bytes:
        return await self._run(self.sync.read, path, offset, limit, approved=approved)

    async def write(self, path: PathLike, data: bytes, *, approved: bool = False) -> None:
        await self._run(self.sync.write, path, data, approved=approved)

    async def edit(self, path: PathLike, old: bytes, new: bytes, *, replace_all: bool = False,
                   approved: bool = False) -> int:
        return await self._run(self.sync.edit, path, old, new, replace_all=replace_all,
                               approved=approved)

    async def ls(self, path: PathLike, *, approved: bool = False) -> Entries:
        return await self._run(self.sync.ls, path, approved=approved)

    async def glob(self, pattern: PathLike, base: PathLike = ".", *,
                   approved: bool = False) -> Entries:
        return await self._run(self.sync.glob, pattern, base, approved=approved)

    async def grep(self, pattern: Union[str, bytes], path: PathLike = ".", *,
                   glob: Optional[PathLike] = None, caseless: bool = False,
                   max_matches: int = 0, approved: bool = False) -> GrepResult:
        return await self._run(self.sync.grep, pattern, path, glob=glob, caseless=caseless,
                               max_matches=max_matches, approved=approved)

    async def check(self, op: str, target: PathLike) -> Decision:
        return await self._run(self.sync.check, op, target)

    def set_ruleset(self, ruleset: Ruleset) -> None:
        """Replaces the ruleset (immediate; calls in flight keep theirs)."""
        self.sync.set_ruleset(ruleset)

    @property
    def ruleset(self) -> Ruleset:
        return self.sync.ruleset

    def close(self) -> None:
        self.sync.close()

    async def __aenter__(self) -> "AsyncGuardedBackend":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class _AsyncExecutingGuardedBackend(AsyncGuardedBackend):
    async def execute(self, command: Union[str, bytes], *, cwd: Optional[PathLike] = None,
                      timeout: Optional[float] = None, env: Optional[Sequence[Any]] = None,
                      max_output: int = 0,
                      on_output: Optional[Callable[[int, bytes], None]] = None,
                      approved: bool = False) -> ExecResult:
        """Runs a command (see :meth:`ExecutingBackend.execute`). Cancelling the awaiting
        task kills the command's process group. ``on_output`` is called from the worker
        thread; to touch the loop from it use ``loop.call_soon_threadsafe``."""
        cancel = Cancel()
        run = functools.partial(self.sync.execute, command, cwd=cwd, timeout=timeout, env=env,
                                max_output=max_output, on_output=on_output, cancel=cancel,
                                approved=approved)
        return await self._run(run, _cancel=cancel)
