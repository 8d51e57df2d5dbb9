"""Commands inside an instance over SSH (Rally's sshutils, paramiko).

The argv is joined with shlex, so every word reaches the guest's shell
quoted; ``cwd`` becomes a quoted ``cd`` in front of it.
"""

import logging
import shlex
import time

from rally import exceptions as rally_exceptions
from rally.utils import sshutils

from rally_container_bench.drivers import base

# Logins are probed while sshd is still starting; paramiko would log every
# refused probe as an ERROR with a traceback.
logging.getLogger("paramiko.transport").setLevel(logging.CRITICAL)


class SSHExecutor(base.Executor):

    def __init__(self, instance, private_key, kind="ssh"):
        self.instance = instance
        self.kind = kind
        self._key = private_key

    def _client(self):
        i = self.instance
        return sshutils.SSH(i.ssh_user, i.ssh_host, port=i.ssh_port,
                            pkey=self._key)

    def run(self, argv, timeout, cwd=None):
        command = shlex.join(str(word) for word in argv)
        if cwd:
            command = "cd %s && %s" % (shlex.quote(cwd), command)
        started = time.monotonic()
        client = self._client()
        try:
            code, out, err = client.execute(command, timeout=timeout)
        except rally_exceptions.SSHTimeout:
            raise base.CommandTimeout("%s did not finish within %s s on %s"
                                      % (argv[0], timeout,
                                         self.instance.name))
        except (rally_exceptions.SSHError, OSError) as e:
            raise base.DriverError("SSH to %s failed: %s"
                                   % (self.instance.name, e))
        finally:
            if client._client:
                client.close()
        return base.CommandResult(command=command, exit_code=code,
                                  stdout=out, stderr=err,
                                  duration_s=time.monotonic() - started)

    def try_login(self):
        """One login attempt running ``true``; True when it worked."""
        try:
            return self.run(["true"], timeout=10).exit_code == 0
        except base.DriverError:
            return False

    def describe(self):
        return {"driver": self.kind}


def wait_for_login(executor, timeout, interval):
    deadline = time.monotonic() + timeout
    while not executor.try_login():
        if time.monotonic() > deadline:
            raise base.DriverError("no SSH login to %s:%s within %s s"
                                   % (executor.instance.ssh_host,
                                      executor.instance.ssh_port, timeout))
        time.sleep(interval)
