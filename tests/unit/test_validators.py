"""Bad NativeHost.sysbench input is rejected by Rally's validation (what
``rally task validate`` runs), before anything runs, with a message that
names the argument."""

import os
import tempfile
import unittest
from unittest import mock

from rally.common import cfg as rally_cfg
from rally.common import validation
from rally import plugins as rally_plugins
from rally.task import scenario

from rally_container_bench import opts
from rally_container_bench.task import cloud_validators
from rally_container_bench.task import validators

NAME = "NativeHost.sysbench"


def errors(**args):
    rally_plugins.load()
    return scenario.Scenario.validate(
        name=NAME, context={}, config={"args": args}, plugin_cfg=None,
        vtype="syntax")


class NativeSysbenchValidationTestCase(unittest.TestCase):

    def assertRejected(self, fragment, **args):
        found = errors(**args)
        self.assertTrue(found, "accepted: %r" % (args,))
        self.assertIn(fragment, " ".join(found))

    def test_good_input_passes(self):
        self.assertEqual([], errors(tests=["quick-cpu"]))
        self.assertEqual([], errors(
            tests=[{"preset": "kek2015-cpu", "threads": 2},
                   {"test": "memory", "memory_oper": "write"}],
            timeout=30))

    def test_tests_required(self):
        self.assertRejected("tests is required")

    def test_unknown_preset_lists_the_known_ones(self):
        self.assertRejected("tests: tests[0]: unknown sysbench preset "
                            "'cpu'; known: kek2015-cpu", tests=["cpu"])

    def test_bad_test_parameter(self):
        self.assertRejected("tests[0]: file_extra_flags is 'direct; id'",
                            tests=[{"preset": "quick-fileio-rndrd",
                                    "file_extra_flags": "direct; id"}])

    def test_unknown_argument(self):
        self.assertRejected("times_to_run", tests=["quick-cpu"],
                            times_to_run=3)

    def test_timeout_must_be_positive(self):
        self.assertRejected("timeout", tests=["quick-cpu"], timeout=0)

    def test_sysbench_path_must_be_executable(self):
        self.assertRejected("sysbench_path: '/nonexistent/sysbench' is not "
                            "an executable", tests=["quick-cpu"],
                            sysbench_path="/nonexistent/sysbench")

    def test_fio_jobs_pass_next_to_sysbench_tests(self):
        self.assertEqual([], errors(tests=[
            "quick-fileio-rndrd", "fio-quick-randread",
            {"fio": {"rw": "randrw", "rwmixread": 70, "runtime": 3}}]))

    def test_bad_fio_job(self):
        self.assertRejected("tests[1]: rwmixread applies to rw readwrite or "
                            "randrw only", tests=[
                                "quick-cpu",
                                {"fio": {"rw": "read", "rwmixread": 70}}])

    def test_fio_must_be_installed_here_unless_remote(self):
        with tempfile.TemporaryDirectory() as empty:
            # A PATH without fio (and everything else), as on a host
            # without the package; sysbench_path is given absolute.
            with mock.patch.dict(os.environ, {"PATH": empty}):
                sysbench = "/usr/bin/sysbench"
                self.assertRejected(
                    "fio tests run fio on this host, which has none",
                    tests=["fio-quick-randread"], sysbench_path=sysbench)
                self.assertEqual([], errors(tests=["quick-cpu"],
                                            sysbench_path=sysbench))
                self.assertNotIn("run fio on this host", " ".join(errors(
                    tests=["fio-quick-randread"], sysbench_path=sysbench,
                    host="127.0.0.1")))

    def test_network_tests_need_their_tools_here(self):
        with tempfile.TemporaryDirectory() as empty:
            with mock.patch.dict(os.environ, {"PATH": empty}):
                sysbench = "/usr/bin/sysbench"
                self.assertRejected(
                    "http tests run wrk on this host, which has none "
                    "(apt-get install wrk)",
                    tests=["http-quick-c1"], sysbench_path=sysbench)
                self.assertRejected(
                    "iperf3 tests run iperf3 on this host",
                    tests=["iperf3-quick"], sysbench_path=sysbench)

    def test_network_tests_refused_with_a_remote_host(self):
        self.assertRejected(
            "http and iperf3 tests cannot run with host",
            tests=["iperf3-quick", "http-quick-c16"], host="127.0.0.1")
        self.assertEqual([], errors(tests=["iperf3-quick",
                                           "http-quick-c16"]))

    def test_fio_refused_where_only_sysbench_runs(self):
        # ZunContainers.run_sysbench_delete with via: logs
        rally_plugins.load()
        found = scenario.Scenario.validate(
            name="ZunContainers.run_sysbench_delete", context={},
            plugin_cfg=None, vtype="syntax", config={"args": {
                "via": "logs", "tests": ["quick-cpu", "fio-quick-randread"]}})
        self.assertIn("fio randread cannot run with via=logs",
                      " ".join(found))

    def test_workdir_must_be_a_writable_directory(self):
        with tempfile.TemporaryDirectory() as scratch:
            missing = os.path.join(scratch, "missing")
            self.assertRejected("workdir: %r is not an existing directory"
                                % missing, tests=["quick-cpu"],
                                workdir=missing)
            self.assertEqual([], errors(tests=["quick-cpu"],
                                        workdir=scratch))


def workload_errors(name, runner, **args):
    rally_plugins.load()
    return scenario.Scenario.validate(
        name=name, context={}, plugin_cfg=None, vtype="syntax",
        config={"args": args, "runner_type": "constant", "runner": runner})


class HostCapacityTestCase(unittest.TestCase):
    """Reads this host's /proc/meminfo and free disk space: real limits.

    STAND-IN: the engine check is left out (unit tests start no engine);
    EngineReadyTestCase below tests it.
    """

    def setUp(self):
        patcher = mock.patch.object(validators.EngineReadyValidator,
                                    "validate", return_value=None)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_vms_beyond_the_host_memory_are_rejected(self):
        found = workload_errors("LocalInstances.boot_and_delete",
                                {"times": 1, "concurrency": 100000},
                                driver="kvm")
        self.assertTrue(found)
        self.assertRegex(" ".join(found),
                         r"concurrency 100000 x \(1024 MiB guest memory \+ "
                         r"256 MiB for QEMU\) = \d+ MiB, but this host has "
                         r"\d+ MiB available")

    def test_vms_that_fit_and_containers_pass(self):
        self.assertEqual([], workload_errors(
            "LocalInstances.boot_and_delete",
            {"times": 1, "concurrency": 1}, driver="kvm"))
        self.assertEqual([], workload_errors(
            "LocalInstances.boot_and_delete",
            {"times": 1, "concurrency": 100000}, driver="docker"))

    def test_native_fileio_beyond_the_free_disk_is_rejected(self):
        with tempfile.TemporaryDirectory() as scratch:
            found = workload_errors(
                NAME, {"times": 1, "concurrency": 4}, workdir=scratch,
                tests=["quick-cpu", {"test": "fileio",
                                     "file_test_mode": "seqwr",
                                     "file_total_size": "1000T",
                                     "time": 1}])
            self.assertIn("concurrency 4 x 1048576000 MiB of test files",
                          " ".join(found))
            self.assertIn("%s has" % scratch, " ".join(found))
            self.assertEqual([], workload_errors(
                NAME, {"times": 1, "concurrency": 4}, workdir=scratch,
                tests=["quick-fileio-rndrd"]))


class OverridesMixin:

    def override(self, **options):
        opts.register()
        for name, value in options.items():
            rally_cfg.CONF.set_override(name, value, group=opts.GROUP)
            self.addCleanup(rally_cfg.CONF.clear_override, name,
                            group=opts.GROUP)


class PushedBuildTestCase(OverridesMixin, unittest.TestCase):
    """sysbench_build = pushed needs a sysbench here to push."""

    def test_no_sysbench_here_is_refused_before_any_boot(self):
        self.override(sysbench_build="pushed",
                      sysbench_path="/nonexistent/sysbench")
        found = " ".join(errors(tests=["quick-cpu"]))
        self.assertIn("sysbench_build = pushed pushes this host's sysbench",
                      found)
        self.override(sysbench_build="auto")
        self.assertNotIn("sysbench_build", " ".join(
            errors(tests=["quick-cpu"])))


class EngineReadyTestCase(OverridesMixin, unittest.TestCase):
    """Engines that cannot answer, for real: nothing listens there."""

    def test_an_engine_that_does_not_answer_is_named_before_any_boot(self):
        with tempfile.TemporaryDirectory() as scratch:
            socket = "unix://%s/docker.sock" % scratch
            self.override(docker_url=socket)
            found = " ".join(workload_errors(
                "LocalInstances.boot_and_delete",
                {"times": 1, "concurrency": 1}, driver="docker"))
        self.assertIn("driver 'docker' cannot run on this host", found)
        self.assertIn("dockerd does not answer at %s" % socket, found)
        self.assertIn("rcbench engines start docker", found)

    def test_an_unknown_driver_is_left_to_the_enum_check(self):
        found = workload_errors("LocalInstances.boot_and_delete",
                                {"times": 1, "concurrency": 1},
                                driver="vmware")
        self.assertEqual(1, len(found), found)
        self.assertIn("vmware", found[0])

    def test_a_guest_image_not_built_is_named_before_any_boot(self):
        # lxc needs no daemon: only the image is missing here.
        with tempfile.TemporaryDirectory() as scratch:
            self.override(image_cache_dir=scratch)
            found = " ".join(workload_errors(
                "LocalInstances.boot_and_delete",
                {"times": 1, "concurrency": 1}, driver="lxc"))
        if "cannot run on this host" in found:
            self.skipTest("lxc is not usable here: " + found)
        self.assertIn("driver 'lxc' has no image to boot: the guest image "
                      "is not built in %s" % scratch, found)
        self.assertIn("rcbench images build", found)


class LifecycleReadyTestCase(OverridesMixin, unittest.TestCase):
    """ContainerLifecycle's runtime check, for real on this host."""

    def errors(self, runner, **args):
        return " ".join(workload_errors(
            "ContainerLifecycle.create_start_stop_remove", runner, **args))

    def test_vms_beyond_the_host_memory_are_rejected_first(self):
        found = self.errors({"times": 1, "concurrency": 100000},
                            runtime="kvm")
        self.assertRegex(found, r"100000 VMs x \(128 MiB \+ 256 MiB for "
                                r"QEMU\) = \d+ MiB, but this host has \d+ "
                                r"MiB available")

    def test_footprint_counts_its_instances(self):
        found = " ".join(workload_errors(
            "ContainerLifecycle.footprint", {"times": 1, "concurrency": 1},
            runtime="kvm", instances=1000))
        self.assertIn("1000 VMs x (128 MiB", found)

    def test_unpackaged_runtimes_say_why(self):
        found = self.errors({"times": 1, "concurrency": 1}, runtime="kata")
        self.assertIn("kata-containers is not packaged for Debian", found)

    def test_a_busybox_image_not_built_is_named(self):
        with tempfile.TemporaryDirectory() as scratch:
            self.override(image_cache_dir=scratch)
            found = self.errors({"times": 1, "concurrency": 1},
                                runtime="runc")
        self.assertIn("the busybox image is not built in %s" % scratch,
                      found)

    def test_a_daemon_that_is_not_running_is_named_with_the_image(self):
        # Whatever runs on this host: a containerd state dir of our own,
        # where nothing runs, and an empty image cache. Both are named.
        with tempfile.TemporaryDirectory() as scratch:
            self.override(image_cache_dir=scratch,
                          containerd_state_dir=os.path.join(scratch, "run"))
            found = self.errors({"times": 1, "concurrency": 1},
                                runtime="containerd")
        self.assertIn("the busybox image is not built in %s" % scratch,
                      found)
        self.assertIn("rcbench's containerd is not running at %s/run/"
                      "containerd.sock (rcbench engines start containerd)"
                      % scratch, found)


class NovaQuotaShortfallTestCase(unittest.TestCase):
    """The arithmetic of rcbench_nova_quota (its API calls: the cloud)."""

    def test_default_quotas_stop_the_ladder_at_16(self):
        limits = {"maxTotalInstances": 10, "totalInstancesUsed": 0,
                  "maxTotalCores": 20, "totalCoresUsed": 2}
        self.assertEqual([("cores", 20, 2, 32), ("instances", 10, 0, 16)],
                         cloud_validators.quota_shortfalls(
                             limits, {"instances": 16, "cores": 32}))
        self.assertEqual([], cloud_validators.quota_shortfalls(
            limits, {"instances": 8, "cores": 16}))

    def test_unlimited_is_never_short(self):
        self.assertEqual([], cloud_validators.quota_shortfalls(
            {"maxTotalInstances": -1, "totalInstancesUsed": 50},
            {"instances": 32}))

    def test_the_quotas_context_is_read(self):
        config = {"contexts": {"users": {}, "quotas": {
            "nova": {"instances": -1}}}}
        self.assertEqual({"instances": -1},
                         cloud_validators._raised_quotas(config, "nova"))
        self.assertEqual({}, cloud_validators._raised_quotas({}, "nova"))


class _Hypervisor(object):
    def __init__(self, name, kind, host):
        self.hypervisor_hostname = name
        self.hypervisor_type = kind
        self.service = {"host": host}


class _Zone(object):
    def __init__(self, name, hosts):
        self.zoneName = name
        self.hosts = {host: {} for host in hosts}


class _NovaStandIn(object):
    """A stand-in for novaclient's hypervisors, zones and flavors.

    The test cloud answers these admin calls for real in
    tests/functional_openstack.
    """

    def __init__(self, hypervisors, zones=()):
        self.hypervisors = mock.Mock(list=lambda: hypervisors)
        self.availability_zones = mock.Mock(list=lambda: list(zones))
        self.flavors = mock.Mock()
        self.flavors.find.side_effect = LookupError("no such flavor")


class NovaCapacityHostsTestCase(unittest.TestCase):
    """Which providers rcbench_nova_capacity reads, and the flavor size."""

    def setUp(self):
        from rally_container_bench.task import nova_validators
        self.nv = nova_validators
        self.nova = _NovaStandIn(
            [_Hypervisor("aio-qemu", "QEMU", "aio-qemu"),
             _Hypervisor("aio-lxc", "LXC", "aio-lxc"),
             _Hypervisor("c2", "QEMU", "c2")],
            [_Zone("nova", ["aio-qemu", "aio-lxc"]), _Zone("fast", ["c2"])])

    def test_hosts_of_the_image_hypervisor_type(self):
        self.assertEqual({"aio-qemu", "c2"},
                         self.nv.hypervisor_hosts(self.nova, "kvm"))
        self.assertEqual({"aio-qemu", "c2"},
                         self.nv.hypervisor_hosts(self.nova, "qemu"))
        self.assertEqual({"aio-lxc"},
                         self.nv.hypervisor_hosts(self.nova, "lxc"))
        self.assertEqual({"c2"},
                         self.nv.hypervisor_hosts(self.nova, "kvm", "fast"))

    def test_flavor_from_the_flavors_context_first(self):
        config = {"args": {"flavor": {"name": "rcbench-kek"}},
                  "contexts": {"flavors": [
                      {"name": "other", "ram": 64},
                      {"name": "rcbench-kek", "ram": 512, "vcpus": 1}]}}
        self.assertEqual((1, 512, {}),
                         self.nv.flavor_size(config, self.nova))
        # Neither made by the workload nor found: nothing to check.
        config["contexts"]["flavors"] = []
        self.assertIsNone(self.nv.flavor_size(config, self.nova))
        self.assertIsNone(self.nv.flavor_size({"args": {}}, self.nova))


class GivenArgValidatorTestCase(unittest.TestCase):
    """The network check with a stand-in Neutron.

    The real one: the bad-input test of test_kvm_vs_docker (the cloud).
    """

    def validate(self, args, networks):
        neutron = mock.Mock()
        neutron.list_networks.side_effect = lambda **kw: {
            "networks": [n for n in networks if kw.get("name") == n]}
        clients = mock.Mock()
        clients.neutron.return_value = neutron
        context = {"users": [{"credential": mock.Mock(
            clients=mock.Mock(return_value=clients))}]}
        cloud_validators.NetworkExistsValidator("network").validate(
            context, {"args": args}, None, None)
        return neutron

    def test_a_visible_network_passes(self):
        self.validate({"network": "private"}, ["private"])

    def test_an_unknown_network_is_named(self):
        with self.assertRaisesRegex(validation.ValidationError,
                                    "network: no network "
                                    "'nope' is visible"):
            self.validate({"network": "nope"}, ["private"])

    def test_no_argument_asks_nothing(self):
        self.assertFalse(self.validate({}, []).list_networks.called)
