# SPDX-License-Identifier: MIT
"""warder.AsyncGuardedBackend: the event loop keeps running while a call works, async ask
callbacks run on the loop, and cancelling a task stops a running command."""

import asyncio
import os
import threading
import time
import unittest

from support import SECRET, Workspace, warder


class Async(Workspace):
    def run_async(self, coro):
        return asyncio.run(asyncio.wait_for(coro, 60))

    def test_every_method(self):
        async def main():
            async with warder.AsyncGuardedBackend(self.local(), self.rules) as g:
                self.assertEqual(await g.read("src/main.c"), b"int main(void) { return 0; }\n")
                await g.write("src/a.c", b"a")
                self.assertEqual(await g.edit("src/a.c", b"a", b"b"), 1)
                self.assertEqual([e.name for e in await g.ls("src")], ["a.c", "main.c"])
                self.assertEqual(len(await g.glob("src/*.c")), 2)
                hits = await g.grep("API_KEY")
                same = self.guard().grep("API_KEY")  # the synchronous guard's answer
                self.assertEqual((list(hits), hits.hidden_files), ([], same.hidden_files))
                self.assertGreaterEqual(hits.hidden_files, 1)
                self.assertEqual((await g.check("read", ".env")).action, "deny")
                with self.assertRaises(warder.PermissionDenied):
                    await g.read(".env")
                with self.assertRaises(warder.ApprovalRequired):
                    await g.write("README", b"x")
                self.assertFalse(hasattr(g, "execute"))
                g.set_ruleset(warder.Ruleset.from_yaml("warder: 1\ndefault: deny\n",
                                                       root=self.root))
                with self.assertRaises(warder.PermissionDenied):
                    await g.read("src/main.c")
                self.assertTrue(g.ruleset.digest.startswith("sha256:"))

        self.run_async(main())

    def test_the_loop_is_not_blocked(self):
        gate = threading.Event()

        class Slow:
            def read(self, path, offset, limit):
                gate.wait(10)  # holds its worker thread until the loop has ticked
                return b"slow"

            def write(self, path, data):
                pass

            def ls(self, path):
                return []

        async def main():
            g = warder.AsyncGuardedBackend(Slow(), self.rules)
            ticks = 0

            async def ticker():
                nonlocal ticks
                while ticks < 5:
                    await asyncio.sleep(0.01)
                    ticks += 1
                gate.set()

            data, _ = await asyncio.gather(g.read(self.p("src/x")), ticker())
            self.assertEqual(data, b"slow")
            self.assertGreaterEqual(ticks, 5)

        self.run_async(main())

    def test_async_ask_runs_on_the_loop(self):
        async def main():
            loop_thread = threading.get_ident()
            where = []

            async def ask(request, decision):
                where.append(threading.get_ident())
                await asyncio.sleep(0.01)
                return request.target == "a.ask"

            g = warder.AsyncGuardedBackend(self.local(), self.rules, ask=ask)
            self.assertEqual(await g.read("a.ask"), b"needs a yes\n")
            with self.assertRaises(warder.PermissionDenied):
                await g.write("README", b"x")
            self.assertEqual(where, [loop_thread, loop_thread])
            # a sync callback works too, and one that raises is raised here
            g2 = warder.AsyncGuardedBackend(self.local(), self.rules,
                                            ask=lambda r, d: 1 / 0)
            with self.assertRaises(ZeroDivisionError):
                await g2.read("a.ask")

        self.run_async(main())

    def test_cancelling_a_pending_ask_declines(self):
        async def main():
            asked = asyncio.Event()

            async def ask(request, decision):
                asked.set()
                await asyncio.sleep(3600)  # the user never answers
                return True

            g = warder.AsyncGuardedBackend(self.local(), self.rules, ask=ask)
            task = asyncio.ensure_future(g.write("README", b"x"))
            await asyncio.wait_for(asked.wait(), 10)
            task.cancel()
            t0 = time.monotonic()
            with self.assertRaises(asyncio.CancelledError):
                await task
            self.assertLess(time.monotonic() - t0, 10)
            self.assertFalse(os.path.exists(self.p("README")))  # declined, not written

        self.run_async(main())

    def test_cancel_a_running_execute(self):
        async def main():
            g = warder.AsyncGuardedBackend(self.local(exec=True), self.rules)
            self.assertEqual((await g.execute("echo hi")).stdout, b"hi\n")
            marker = self.p("src/finished")  # src/** may be written
            task = asyncio.ensure_future(g.execute(f"sleep 20; echo done > {marker}"))
            await asyncio.sleep(0.3)
            t0 = time.monotonic()
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            self.assertLess(time.monotonic() - t0, 10)  # killed, not waited for
            await asyncio.sleep(0.2)
            self.assertFalse(os.path.exists(marker))
            # refusals are the same as the synchronous guard's
            with self.assertRaises(warder.PermissionDenied):
                await g.execute("rm -rf /")
            with self.assertRaises(warder.WarderError):
                await g.execute("cat .env")

        self.run_async(main())
        # control arm: the command really would have finished and written its marker
        b = self.local(exec=True)
        r = b.execute(f"sleep 0.1; echo done > {self.p('control')}")
        self.assertEqual(r.exit_status, 0)
        self.assertTrue(os.path.exists(self.p("control")))

    def test_many_calls_at_once(self):
        async def main():
            g = warder.AsyncGuardedBackend(self.local(), self.rules)
            results = await asyncio.gather(*[g.read("src/main.c") for _ in range(50)],
                                           *[g.read(".env") for _ in range(50)],
                                           return_exceptions=True)
            self.assertTrue(all(r == b"int main(void) { return 0; }\n" for r in results[:50]))
            self.assertTrue(all(isinstance(r, warder.PermissionDenied) for r in results[50:]))
            self.assertTrue(all(SECRET not in str(r) for r in results[50:]))

        self.run_async(main())


if __name__ == "__main__":
    unittest.main()
