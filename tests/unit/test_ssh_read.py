"""Reading a command's output over SSH to its end (core/ssh.read_to_exit).

Stand-in: the paramiko channel below is a fake, because the race it
replays (the last output and the exit status taken by paramiko's
transport thread at once) cannot be made to happen on demand with a real
sshd. Every functional test that runs sysbench over SSH (Docker, Podman,
LXC, QEMU guests, the test cloud's compute hosts) reads through the same
function on a real channel.
"""

import os
import unittest

from rally import exceptions as rally_exceptions

from rally_container_bench.core import ssh


class _Channel:
    """What paramiko's Channel shows the reader, chunk by chunk."""

    def __init__(self, stdout_chunks, stderr_chunks=(), exit_after=0,
                 with_status=(), after_status=(), eof=True):
        self.stdout = list(stdout_chunks)
        self.stderr = list(stderr_chunks)
        # taken by the transport thread in the same moment as the status
        self.with_status = list(with_status)
        # sent by sshd after the status, one chunk per look, then its EOF
        self.after_status = list(after_status)
        self.sends_eof = eof
        self.status = False
        self.closed = False
        self.polls = 0
        self.exit_after = exit_after  # polls before the status is there
        self._r, self._w = os.pipe()
        os.write(self._w, b"x")  # always readable: select returns at once

    def fileno(self):
        return self._r

    def close(self):
        os.close(self._r)
        os.close(self._w)

    @property
    def eof_received(self):
        return self.status and not self.after_status and self.sends_eof

    def recv_ready(self):
        if self.status and self.after_status and not self.stdout:
            self.stdout.append(self.after_status.pop(0))
            return False  # there at the next look
        return bool(self.stdout)

    def recv(self, size):
        return self.stdout.pop(0)

    def recv_stderr_ready(self):
        return bool(self.stderr)

    def recv_stderr(self, size):
        return self.stderr.pop(0)

    def exit_status_ready(self):
        self.polls += 1
        if self.polls > self.exit_after:
            self.stdout += self.with_status
            self.with_status = []
            self.status = True
        return self.status


class ReadToExitTestCase(unittest.TestCase):

    def test_output_buffered_with_the_status_is_read(self):
        # sysbench's summary arrives together with the exit status: the
        # first look for output finds none, the look for the status finds
        # it there and the summary buffered (sshutils stopped here)
        channel = _Channel([], [b"warning\n"], with_status=[
            b"Total operations: 787901\n",
            b"General statistics:\n    total time: 2.1s\n"])
        self.addCleanup(channel.close)
        out, err = ssh.read_to_exit(channel, "sysbench", "h", timeout=5)
        self.assertEqual(b"Total operations: 787901\nGeneral statistics:\n"
                         b"    total time: 2.1s\n", out)
        self.assertEqual(b"warning\n", err)

    def test_waits_for_the_status(self):
        channel = _Channel([b"a"], exit_after=3)
        self.addCleanup(channel.close)
        out, _ = ssh.read_to_exit(channel, "true", "h", timeout=5, poll=0)
        self.assertEqual(b"a", out)
        self.assertEqual(4, channel.polls)

    def test_a_command_that_never_ends_times_out(self):
        channel = _Channel([], exit_after=10 ** 9)
        self.addCleanup(channel.close)
        with self.assertRaises(rally_exceptions.SSHTimeout):
            ssh.read_to_exit(channel, "sleep 9", "h", timeout=0.05, poll=0)

    def test_output_sent_after_the_status_is_read_to_the_eof(self):
        # sshd sent the status with the summary still in the child's pipe
        # (KEK's ladder, libvirt-LXC at 32: 4 of 32 lost it, 2026-11-29)
        channel = _Channel([b"Threads started!\n"], after_status=[
            b"Total operations: 821306\n", b"", b"    total time: 2.0s\n"])
        self.addCleanup(channel.close)
        out, _ = ssh.read_to_exit(channel, "sysbench", "h", timeout=5,
                                  poll=0)
        self.assertEqual(b"Threads started!\nTotal operations: 821306\n"
                         b"    total time: 2.0s\n", out)

    def test_no_eof_after_the_status_ends_the_read_after_a_grace(self):
        # a command that left a child holding its stdout: no EOF comes
        channel = _Channel([b"started\n"], eof=False)
        self.addCleanup(channel.close)
        out, _ = ssh.read_to_exit(channel, "daemon &", "h", timeout=5,
                                  poll=0, after_status=0.05)
        self.assertEqual(b"started\n", out)
