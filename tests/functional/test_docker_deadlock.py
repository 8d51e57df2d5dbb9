"""A dockerd whose network controller deadlocked ends a task in one timeout.

Stand-in: the daemon here is a small HTTP server on a unix socket that
behaves as Debian's dockerd 20.10.24 did in CI (engines/docker/deadlock):
/_ping and /version answer, every other call hangs. The deadlock itself
cannot be made on demand; the real docker CLI and Docker SDK talk to the
stand-in exactly as they talk to dockerd.
"""

import http.server
import json
import os
import shutil
import socketserver
import tempfile
import threading
import time
import types
import unittest
from unittest import mock

from rally_container_bench.core import base
from rally_container_bench.engines.docker import deadlock
from rally_container_bench.engines.docker import instance
from rally_container_bench.engines.docker import lifecycle
from rally_container_bench import opts

TIMEOUT_S = 3.0


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # a unix socket has no client address to log

    def _answer(self, body, content_type="text/plain"):
        self.send_response(200)
        self.send_header("Api-Version", "1.41")
        self.send_header("Ostype", "linux")
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _handle(self):
        path = self.path.split("?")[0]
        if path.endswith("/_ping"):
            return self._answer(b"OK")
        if path.endswith("/version"):
            return self._answer(json.dumps(
                {"ApiVersion": "1.41", "MinAPIVersion": "1.12",
                 "Version": "20.10.24", "Os": "linux"}).encode(),
                "application/json")
        self.server.hung += 1
        self.server.released.wait()  # the controller's lock, held for good
        try:
            self.send_error(500)
        except OSError:
            pass  # the client gave up long ago

    do_GET = do_HEAD = do_POST = do_DELETE = _handle


class _StandInDockerd(socketserver.ThreadingMixIn,
                      socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path):
        super().__init__(path, _Handler)
        self.released = threading.Event()
        self.hung = 0

    def get_request(self):
        request, _ = super().get_request()
        return request, ("stand-in", 0)


class DeadlockedDockerdTestCase(unittest.TestCase):

    def setUp(self):
        scratch = tempfile.mkdtemp(prefix="rcbench-deadlock-")
        self.addCleanup(shutil.rmtree, scratch, True)
        path = os.path.join(scratch, "docker.sock")
        self.server = _StandInDockerd(path)
        threading.Thread(target=self.server.serve_forever,
                         daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.addCleanup(self.server.released.set)
        conf = opts.register()
        self.conf = types.SimpleNamespace(**{k: conf[k] for k in conf})
        self.conf.docker_url = "unix://" + path
        self.conf.engine_call_timeout = TIMEOUT_S
        patcher = mock.patch.dict(deadlock._found, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def timed(self, call):
        started = time.monotonic()
        with self.assertRaises(base.DriverError) as caught:
            call()
        return time.monotonic() - started, str(caught.exception)

    def test_cli_calls_after_the_first_timeout_fail_at_once(self):
        cli = lifecycle.DockerCli(None, self.conf)
        took, why = self.timed(lambda: cli.discard("s_rally_a"))
        self.assertIn("moby/libnetwork#2679", why)
        # the call's timeout, then the probe's /networks timeout
        self.assertGreaterEqual(took, TIMEOUT_S)
        self.assertLess(took, TIMEOUT_S + 3.0 + 5.0)
        hung = self.server.hung
        for name in ("s_rally_b", "s_rally_c"):
            took, why = self.timed(lambda: cli.discard(name))
            self.assertLess(took, 1.0)
            self.assertIn("not sent", why)
            self.assertIn("rcbench engines stop docker", why)
        self.assertEqual(hung, self.server.hung)

    def test_sdk_calls_after_the_first_timeout_fail_at_once(self):
        driver = instance.DockerDriver(None, self.conf)
        victim = base.Instance(name="s_rally_d")
        victim.id = "d" * 64
        took, why = self.timed(lambda: driver.delete(victim))
        self.assertIn("did not answer", why)
        self.assertIn("moby/libnetwork#2679", why)
        self.assertLess(took, TIMEOUT_S + 3.0 + 5.0)
        took, why = self.timed(lambda: driver.wait_deleted(victim, 60))
        self.assertLess(took, 1.0)
        self.assertIn("not sent", why)
        # the lifecycle view of the same daemon knows it too
        took, _ = self.timed(
            lambda: lifecycle.DockerCli(None, self.conf).discard("x"))
        self.assertLess(took, 1.0)
