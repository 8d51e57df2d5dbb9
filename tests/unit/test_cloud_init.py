"""cloud-init's wait, run by a real shell.

STAND-IN: a ``cloud-init`` script on PATH answers ``status`` as cloud-init
22.4 does (exit 0 done, 1 error). The real cloud-init is waited for in
tests/functional/test_cloud_standin.py.
"""

import os
import subprocess
import tempfile
import unittest

from rally_container_bench.core import base
from rally_container_bench.core import cloud_init

FAKE = """#!/bin/sh
[ "$1" = status ] || exit 9
case "$2" in
--wait) exit %(code)d ;;
--long) printf 'status: %(status)s\\ndetail:\\n%(detail)s\\n'; exit %(code)d ;;
esac
"""


class ShellExecutor(base.Executor):
    kind = "shell"

    def __init__(self, path):
        self.path = path

    def run(self, argv, timeout, cwd=None):
        proc = subprocess.run(argv, capture_output=True, text=True,
                              timeout=timeout,
                              env=dict(os.environ, PATH=self.path))
        return base.CommandResult(" ".join(argv), proc.returncode,
                                  proc.stdout, proc.stderr, 0.0)


class CloudInitWaitTestCase(unittest.TestCase):

    def executor(self, code=None, status="done", detail="DataSourceNoCloud"):
        directory = tempfile.mkdtemp(prefix="rcbench-cloud-init-")
        self.addCleanup(subprocess.run, ["rm", "-rf", directory])
        if code is not None:
            fake = os.path.join(directory, "cloud-init")
            with open(fake, "w") as f:
                f.write(FAKE % {"code": code, "status": status,
                                "detail": detail})
            os.chmod(fake, 0o755)
        return ShellExecutor(directory + os.pathsep + "/usr/bin:/bin")

    def test_no_cloud_init_is_none(self):
        executor = self.executor()
        self.assertFalse(cloud_init.present(executor, 10))
        self.assertIsNone(cloud_init.wait(executor, 10))

    def test_done_gives_its_status(self):
        executor = self.executor(0)
        self.assertTrue(cloud_init.present(executor, 10))
        self.assertIn("status: done", cloud_init.wait(executor, 10))

    def test_an_error_says_what_cloud_init_said(self):
        with self.assertRaisesRegex(
                cloud_init.CloudInitError,
                "(?s)exit 1.*status: error.*no datasource"):
            cloud_init.wait(self.executor(1, "error", "no datasource"), 10)


# cloud-init 22.4's console lines (Debian bookworm), as a server's serial
# console shows them; the test cloud's own are read in
# tests/functional_openstack/test_site_image.py.
RAN = """[    6.1] cloud-init[412]: Cloud-init v. 22.4.2 running 'init-local' at Sat, 05 Dec 2026 15:40:02 +0000. Up 6.01 seconds.
[   21.5] cloud-init[530]: Cloud-init v. 22.4.2 finished at Sat, 05 Dec 2026 15:40:17 +0000. Datasource %s.  Up 21.50 seconds
"""  # noqa: E501


class ConsoleDiagnosisTestCase(unittest.TestCase):

    def test_no_datasource_says_how_the_key_gets_there(self):
        said = cloud_init.console_diagnosis(RAN % "DataSourceNone")
        self.assertIn("cloud-init 22.4.2 ran and found no datasource", said)
        self.assertIn("config_drive: true", said)

    def test_a_datasource_found_points_at_the_login_user(self):
        said = cloud_init.console_diagnosis(
            RAN % "DataSourceConfigDrive [net,ver=2][source=/dev/sr0]",
            ssh_user="root")
        self.assertIn("(DataSourceConfigDrive)", said)
        self.assertIn("ssh_user is root", said)

    def test_an_image_without_cloud_init(self):
        said = cloud_init.console_diagnosis(
            "Debian GNU/Linux 12 host ttyS0\n\nhost login: ")
        self.assertIn("shows no cloud-init", said)

    def test_started_not_finished_empty_unreadable(self):
        started = (RAN % "x").splitlines()[0]
        self.assertIn("did not finish",
                      cloud_init.console_diagnosis(started))
        self.assertIn("is empty", cloud_init.console_diagnosis(" \n"))
        self.assertIn("could not be read",
                      cloud_init.console_diagnosis(None))
