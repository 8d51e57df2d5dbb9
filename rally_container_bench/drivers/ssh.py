"""Commands inside an instance over SSH (Rally's sshutils, paramiko).

The argv is joined with shlex, so every word reaches the guest's shell
quoted; ``cwd`` becomes a quoted ``cd`` in front of it.
"""

import logging
import shlex
import time

import paramiko
from rally import exceptions as rally_exceptions
from rally.utils import sshutils

from rally_container_bench.drivers import base

# Logins are probed while sshd is still starting; paramiko would log every
# refused probe as an ERROR with a traceback.
logging.getLogger("paramiko.transport").setLevel(logging.CRITICAL)


class _SSH(sshutils.SSH):
    """Rally's SSH client, connecting with a timeout emulated guests meet.

    sshutils connects with timeout=1, and paramiko applies it to the whole
    key exchange too; a guest under QEMU TCG can take longer than that to
    answer it, so a login that worked once would fail at random the next
    time. Everything else is sshutils' own.
    """

    connect_timeout = 30

    def _get_client(self):
        if self._client:
            return self._client
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        try:
            client.connect(self.host, username=self.user, port=self.port,
                           pkey=self.pkey, key_filename=self.key_filename,
                           password=self.password,
                           timeout=self.connect_timeout,
                           banner_timeout=self.connect_timeout,
                           auth_timeout=self.connect_timeout)
        except Exception as e:
            client.close()
            self._client = False
            raise rally_exceptions.SSHError(
                "%s during connect to %s@%s:%s: %r"
                % (type(e).__name__, self.user, self.host, self.port, e))
        self._client = client
        return client


class SSHExecutor(base.Executor):
    """One SSH connection to an instance, reused by every command.

    Connecting is retried (a command never started is safe to start
    again); a command that ran is never repeated. Under emulation (TCG)
    a handshake can take seconds, so fewer connections mean fewer
    chances to lose one.
    """

    def __init__(self, instance, private_key, kind="ssh"):
        self.instance = instance
        self.kind = kind
        self._key = private_key
        self._ssh = None

    def _connected(self, attempts=3):
        i = self.instance
        last = None
        for attempt in range(attempts):
            if self._ssh is None:
                self._ssh = _SSH(i.ssh_user, i.ssh_host, port=i.ssh_port,
                                 pkey=self._key)
            try:
                # Connects without running anything.
                self._ssh._get_client()
                return self._ssh
            except (rally_exceptions.SSHError, OSError) as e:
                last = e
                self.close()
                if attempt + 1 < attempts:
                    time.sleep(0.5 * (attempt + 1))
        raise base.DriverError("SSH to %s (%s:%s) failed: %s"
                               % (i.name, i.ssh_host, i.ssh_port, last))

    def run(self, argv, timeout, cwd=None):
        command = shlex.join(str(word) for word in argv)
        if cwd:
            command = "cd %s && %s" % (shlex.quote(cwd), command)
        started = time.monotonic()
        client = self._connected()
        try:
            code, out, err = client.execute(command, timeout=timeout)
        except rally_exceptions.SSHTimeout:
            self.close()
            raise base.CommandTimeout("%s did not finish within %s s on %s"
                                      % (argv[0], timeout,
                                         self.instance.name))
        except (rally_exceptions.SSHError, OSError) as e:
            self.close()
            raise base.DriverError("SSH command on %s failed: %s"
                                   % (self.instance.name, e))
        return base.CommandResult(command=command, exit_code=code,
                                  stdout=out, stderr=err,
                                  duration_s=time.monotonic() - started)

    def close(self):
        if self._ssh is not None and self._ssh._client:
            self._ssh.close()
        self._ssh = None

    def try_login(self):
        """One login attempt running ``true``; True when it worked."""
        try:
            code, _, _ = self._connected(attempts=1).execute("true",
                                                             timeout=30)
            return code == 0
        except (base.DriverError, rally_exceptions.SSHError, OSError):
            return False
        finally:
            self.close()


def wait_for_login(executor, timeout, interval):
    deadline = time.monotonic() + timeout
    while not executor.try_login():
        if time.monotonic() > deadline:
            raise base.DriverError("no SSH login to %s:%s within %s s"
                                   % (executor.instance.ssh_host,
                                      executor.instance.ssh_port, timeout))
        time.sleep(interval)
