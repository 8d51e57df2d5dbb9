"""The test cloud's scripts never put a password on a command line.

A command's argv is visible to every user of the host (ps, /proc/PID/
cmdline); the passwords of tools/openstack-aio go into config files (here
documents), through stdin, or through the environment of one command.
"""

import glob
import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SECRET = re.compile(r"\$\{?(DB_PASS|RABBIT_PASS|SERVICE_PASS|ADMIN_PASS)\b")
HEREDOC = re.compile(r"<<-?\s*'?(\w+)'?")
# Where a secret may appear outside a here document: a variable
# assignment (written to a file later), one command's environment, or a
# here string (stdin).
ALLOWED = [
    re.compile(r"^\s*(local\s+|export\s+)?\w+=\S*" + SECRET.pattern),
    re.compile(r"^\s*(local\s+|export\s+)?\w+=\"[^\"]*" + SECRET.pattern),
    re.compile(r"(^|\s)\w+=" + SECRET.pattern + r"\S*\s+\S"),
    re.compile(r"<<<\s*\"[^\"]*" + SECRET.pattern),
]


def secret_uses(text):
    """[(line number, line)] where a secret is used outside here docs."""
    found, heredoc_end = [], None
    for number, line in enumerate(text.splitlines(), 1):
        if heredoc_end is not None:
            if line.strip() == heredoc_end:
                heredoc_end = None
            continue
        opened = HEREDOC.search(line.replace("<<<", ""))
        if line.lstrip().startswith("#"):
            continue
        if SECRET.search(line):
            found.append((number, line))
        if opened:
            heredoc_end = opened.group(1)
    return found


def on_a_command_line(line):
    return not any(pattern.search(line) for pattern in ALLOWED)


class AioSecretsTestCase(unittest.TestCase):

    def test_no_password_on_a_command_line(self):
        scripts = glob.glob(os.path.join(TOP, "tools", "openstack-aio",
                                         "*.sh"))
        self.assertTrue(scripts)
        for path in scripts:
            with open(path) as f:
                uses = secret_uses(f.read())
            for number, line in uses:
                with self.subTest(script=os.path.basename(path), line=number):
                    self.assertFalse(on_a_command_line(line), line)

    def test_the_check_catches_argv_and_passes_the_safe_forms(self):
        for line in ['rabbitmqctl add_user openstack "$RABBIT_PASS"',
                     'mysql -e "CREATE USER x IDENTIFIED BY \'$DB_PASS\'"',
                     'keystone-manage bootstrap --bootstrap-password '
                     '"$ADMIN_PASS"']:
            self.assertTrue(on_a_command_line(line), line)
        for line in ['rabbitmqctl add_user openstack <<< "$RABBIT_PASS"',
                     '    local db="mysql+pymysql://o:$DB_PASS@127.0.0.1"',
                     'export OS_PASSWORD=$ADMIN_PASS',
                     'OS_BOOTSTRAP_PASSWORD=$ADMIN_PASS as keystone x',
                     '} | SERVICE_PASS=$SERVICE_PASS python3 register.py']:
            self.assertFalse(on_a_command_line(line), line)
        self.assertEqual([], secret_uses("cat <<EOF\npassword = "
                                         "$SERVICE_PASS\nEOF\n"))
