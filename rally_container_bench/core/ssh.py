"""Commands inside an instance over SSH (Rally's sshutils, paramiko).

The argv is joined with shlex, so every word reaches the guest's shell
quoted; ``cwd`` becomes a quoted ``cd`` in front of it.
"""

import logging
import os
import select
import shlex
import time

import paramiko
from rally import exceptions as rally_exceptions
from rally.utils import sshutils

from rally_container_bench.core import abort
from rally_container_bench.core import base

# Logins are probed while sshd is still starting; paramiko would log every
# refused probe as an ERROR with a traceback.
logging.getLogger("paramiko.transport").setLevel(logging.CRITICAL)


# Shortest login attempt: a TCG guest's key exchange alone takes ~2 s.
_MIN_ATTEMPT = 5


# What a refused key means for an image with the key baked in.
REBUILD_HINT = ("its image does not authorize that key (rebuild it: rcbench "
                "images build --force)")


class KeyRefusedError(base.DriverError):
    """The guest went on refusing the key: the login waits no longer."""


class KeyRefused(rally_exceptions.SSHError):
    """sshd answered and refused the key: not a guest still booting."""


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
            error = (KeyRefused if isinstance(
                e, paramiko.AuthenticationException)
                else rally_exceptions.SSHError)
            raise error(
                "%s during connect to %s@%s:%s: %r"
                % (type(e).__name__, self.user, self.host, self.port, e))
        self._client = client
        return client

    def execute(self, cmd, stdin=None, timeout=3600):
        """(exit status, stdout, stderr) of cmd, its output read whole.

        sshutils' loop stops reading once the exit status is there, and
        the output's tail was lost: a sysbench summary, 1 of 1152 tests of
        KEK's ladder on the test cloud (libvirt-LXC at 32, 2026-11-29);
        reading what was buffered with the status still lost 4 of 32 at
        that step (the status came before the last output): here the
        output is read to the server's EOF (read_to_exit).
        """
        if stdin is not None and not isinstance(stdin, bytes):
            raise ValueError("stdin of a command over SSH here is bytes")
        session = self._get_client().get_transport().open_session()
        try:
            session.exec_command(cmd)
            if stdin is not None:
                session.settimeout(timeout or None)
                session.sendall(stdin)
                session.shutdown_write()
            out, err = read_to_exit(session, cmd, self.host, timeout)
            status = session.recv_exit_status()
        finally:
            session.close()
        return (status, out.decode("utf-8", "replace"),
                err.decode("utf-8", "replace"))


def read_to_exit(session, cmd, host, timeout, poll=0.1, after_status=10.0):
    """(stdout, stderr) bytes of a paramiko channel, to the output's end.

    The end is the server's EOF, not the exit status: sshd can send the
    status while the command's last output is still on its way (RFC 4254
    lets it; OpenSSH does when the child exits with output left in its
    pipe). After the status it waits at most after_status seconds for
    the EOF (a command that left a child holding its stdout sends none).
    Raises sshutils' SSHTimeout after timeout seconds (0: none).
    """
    out, err = [], []
    deadline = time.monotonic() + timeout if timeout else None
    status_at = None
    while True:
        read = False
        while session.recv_ready():
            out.append(session.recv(65536))
            read = True
        while session.recv_stderr_ready():
            err.append(session.recv_stderr(65536))
            read = True
        if read:
            continue
        if status_at is None and session.exit_status_ready():
            status_at = time.monotonic()
        # the end first, then nothing left: output that came with the EOF
        # between the two looks is read by the next turn
        ended = status_at is not None and (
            session.eof_received or session.closed
            or time.monotonic() - status_at > after_status)
        if ended and not session.recv_ready() \
                and not session.recv_stderr_ready():
            return b"".join(out), b"".join(err)
        if deadline is not None and time.monotonic() > deadline:
            raise rally_exceptions.SSHTimeout(
                "Timeout executing command %r on host %s" % (cmd, host))
        select.select([session], [], [], poll)


class SSHExecutor(base.Executor):
    """One SSH connection to an instance, reused by every command.

    Connecting is retried (a command never started is safe to start
    again); a command that ran is never repeated. Under emulation (TCG)
    a handshake can take seconds, so fewer connections mean fewer
    chances to lose one.
    """

    def __init__(self, instance, private_key, kind="ssh", key_origin=None,
                 refused_hint=REBUILD_HINT):
        self.instance = instance
        self.kind = kind
        self._key = private_key
        # Where the key comes from, and what to do when a guest refuses it.
        self.key_origin = key_origin or "this executor"
        self.refused_hint = refused_hint
        self._ssh = None

    def _connected(self, attempts=3, connect_timeout=_SSH.connect_timeout):
        i = self.instance
        last = None
        for attempt in range(attempts):
            if self._ssh is None:
                self._ssh = _SSH(i.ssh_user, i.ssh_host, port=i.ssh_port,
                                 pkey=self._key)
                self._ssh.connect_timeout = connect_timeout
            try:
                # Connects without running anything.
                self._ssh._get_client()
                return self._ssh
            except KeyRefused:
                self.close()
                raise
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

    def put_archive(self, data, directory, timeout):
        """Unpack a tar.gz (bytes) into directory on the instance."""
        command = "mkdir -p %s && tar -xzf - -C %s" % (
            shlex.quote(directory), shlex.quote(directory))
        client = self._connected()
        try:
            code, _, err = client.execute(command, stdin=data,
                                          timeout=timeout)
        except (rally_exceptions.SSHError, rally_exceptions.SSHTimeout,
                OSError) as e:
            self.close()
            raise base.DriverError("copying %d bytes to %s on %s failed: %s"
                                   % (len(data), directory,
                                      self.instance.name, e))
        if code != 0:
            raise base.DriverError("unpacking into %s on %s exited %d: %s"
                                   % (directory, self.instance.name, code,
                                      err[-500:]))

    def close(self):
        if self._ssh is not None and self._ssh._client:
            self._ssh.close()
        self._ssh = None

    def login(self, timeout=_SSH.connect_timeout):
        """One login attempt running ``true``, each step within timeout.

        (None, False) when it worked, the connection kept for run(); else
        (why not, whether sshd refused the key), closed.
        """
        try:
            client = self._connected(attempts=1, connect_timeout=timeout)
            code, _, err = client.execute("true", timeout=timeout)
            why_not = None if code == 0 else "true exited %d: %s" % (code,
                                                                     err)
            refused = False
        except KeyRefused as e:
            why_not, refused = str(e), True
        except (base.DriverError, rally_exceptions.SSHError,
                rally_exceptions.SSHTimeout, OSError) as e:
            # SSHTimeout is no SSHError: a guest too slow to run ``true``
            # within the attempt (TCG under load) is only not ready yet.
            why_not, refused = "%s: %s" % (type(e).__name__, e), False
        if why_not:
            self.close()
        return why_not, refused

    def try_login(self, timeout=_SSH.connect_timeout):
        """login(), then closed either way."""
        try:
            return self.login(timeout)
        finally:
            self.close()


def wait_for_login(executor, timeout, interval, refused_timeout):
    """Return once a login works; each attempt within the time left.

    A firewalled or dead guest never answers a connect: without the cap
    one attempt alone would outlast a short timeout. A guest whose sshd
    refuses the key for refused_timeout seconds on end will not accept it
    later (only a guest that installs keys after sshd starts, e.g. by
    cloud-init, refuses it for a while): that fails at once, saying so.
    Ends early when the task is aborted (abort.Aborted).
    """
    deadline = time.monotonic() + timeout
    refused_since = None
    while True:
        abort.check("waiting for SSH to %s" % executor.instance.name)
        left = deadline - time.monotonic()
        attempt = min(_SSH.connect_timeout, max(left, _MIN_ATTEMPT))
        why_not, refused = abort.call(
            lambda: executor.try_login(attempt),
            "waiting for SSH to %s" % executor.instance.name)
        if why_not is None:
            return
        now = time.monotonic()
        if not refused:
            refused_since = None
        elif refused_since is None:
            refused_since = now
        elif now - refused_since >= refused_timeout:
            raise KeyRefusedError(
                "the guest %s (%s:%s) refused the key of %s for %g s: %s"
                % (executor.instance.name, executor.instance.ssh_host,
                   executor.instance.ssh_port, executor.key_origin,
                   refused_timeout, executor.refused_hint))
        if now + interval > deadline:
            raise base.DriverError(
                "no SSH login to %s (%s:%s) within %g s; last attempt: %s"
                % (executor.instance.name, executor.instance.ssh_host,
                   executor.instance.ssh_port, timeout, why_not))
        abort.sleep(interval)


def remote_host(host, port, user, key_file, name=None):
    """An executor for a host that is not an instance (a compute node).

    name: what errors call it (default: its address).
    """
    with open(os.path.expanduser(key_file)) as f:
        key = f.read()
    target = base.Instance(name=name or host, id=host, ssh_host=host,
                           ssh_port=int(port), ssh_user=user)
    return SSHExecutor(target, key, kind="native")


class SshDriver(base.Driver):
    """A driver whose instances are reached over SSH with the guest key."""

    def wait_reachable(self, instance, timeout):
        """Return when an SSH login to the instance succeeds."""
        wait_for_login(self.executor(instance), timeout,
                       self.conf.ssh_poll_interval,
                       self.conf.ssh_key_refused_timeout)

    def executor(self, instance):
        return SSHExecutor(instance, self.image.read_private_key(),
                           kind=self.name,
                           key_origin="the guest image in %s"
                           % self.image.dir)
