"""How the Rally host reaches compute hosts (validity.compute_hosts):
the map checked, a template filled in, versions compared. Logging in is
done for real against the test cloud's hosts
(tests/functional_openstack)."""

import os
import unittest

from rally_container_bench.validity import compute_hosts as access


class ComputeHostsTestCase(unittest.TestCase):

    def test_a_template_for_all_and_overrides_per_host(self):
        spec = access.parse({"address": "{host}.mgmt", "user": "stack",
                             "hosts": {"c2": {"address": "192.0.2.2",
                                              "port": 2222}}})
        one = access.access(spec, "c1")
        self.assertEqual(("c1.mgmt", 22, "stack", "~/.ssh/id_rsa",
                          "sysbench", "/tmp"),
                         (one.address, one.port, one.user, one.key_file,
                          one.sysbench, one.workdir))
        two = access.access(spec, "c2")
        self.assertEqual("stack@192.0.2.2:2222", two.describe())
        self.assertEqual("root@c3:22", access.access({}, "c3").describe())

    def test_bad_maps_say_what_is_wrong(self):
        for spec, words in (
                ([], "is a mapping"),
                ({"adress": "x"}, "unknown key(s) adress"),
                ({"port": "22"}, "compute_hosts.port is a int"),
                ({"hosts": {"c1": {"user": 0}}},
                 "compute_hosts.hosts.c1.user is a str"),
                ({"hosts": {"c1": {"hosts": {}}}}, "unknown key hosts"),
                ({"address": "{name}"}, "only {host} may be filled in")):
            with self.assertRaises(access.ComputeHostError) as found:
                access.parse(spec)
            self.assertIn(words, str(found.exception))
        self.assertIsNone(access.parse(None))

    def test_versions_compared_by_number(self):
        self.assertEqual("1.0.20", access.version_of(
            "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)"))
        self.assertEqual("0.4.12", access.version_of("sysbench 0.4.12"))
        self.assertIsNone(access.version_of("command not found"))


class VcpuPinTestCase(unittest.TestCase):
    """`virsh vcpupin DOMAIN --vcpu 0` as libvirt 9 prints it."""

    def test_the_first_host_cpu_of_vcpu_0(self):
        from rally_container_bench.task.scenarios import cloud
        table = (" VCPU   CPU Affinity\n----------------------\n"
                 " 0      3\n")
        self.assertEqual(3, cloud.parse_vcpupin(table))
        self.assertEqual(2, cloud.parse_vcpupin(" 0      2-3\n"))
        self.assertEqual(1, cloud.parse_vcpupin("0: 1,5\n"))
        self.assertIsNone(cloud.parse_vcpupin("error: no domain\n"))


class ResolveTestCase(unittest.TestCase):
    """Where compute_hosts come from: a file, the task args, the env."""

    def setUp(self):
        import tempfile
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.path = os.path.join(scratch.name, "hosts.yaml")
        with open(self.path, "w") as f:
            f.write("user: root\nkey_file: /k\nhosts: {c1: {address: "
                    "10.0.0.1}}\n")

    def test_the_file_wins_then_the_args_then_the_envs_extras(self):
        args = {"compute_hosts": {"user": "args"}}
        extras = {"compute_hosts": {"user": "env"}}
        found, where = access.resolve(args, self.path, extras)
        self.assertEqual("root", found["compute_hosts"]["user"])
        self.assertEqual(self.path, where)
        found, where = access.resolve(args, None, extras)
        self.assertEqual("args", found["compute_hosts"]["user"])
        found, where = access.resolve({}, None, extras)
        self.assertEqual(("env", "the Rally env's extras"),
                         (found["compute_hosts"]["user"], where))
        found, where = access.resolve({}, None, {"compute_hosts": self.path})
        self.assertEqual("10.0.0.1",
                         found["compute_hosts"]["hosts"]["c1"]["address"])
        self.assertIn("(the Rally env's extras)", where)
        self.assertEqual(({}, None), access.resolve({}, None, {}))

    def test_a_bad_file_is_refused_saying_why(self):
        with open(self.path, "w") as f:
            f.write("user: root\nsshkey: /k\n")
        with self.assertRaisesRegex(access.ComputeHostError,
                                    "unknown key.*sshkey"):
            access.resolve({}, self.path)
        with self.assertRaisesRegex(access.ComputeHostError,
                                    "No such file or directory"):
            access.resolve({}, self.path + ".missing")
