"""NativeHost: the same workload on the bare host, the baseline."""

import contextlib
import functools

from rally.common import validation
from rally.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.core import base
from rally_container_bench.core import ssh as ssh_login
from rally_container_bench.engines.native import instance as native
from rally_container_bench import opts
from rally_container_bench.task.scenarios import sysbench_utils
from rally_container_bench.validity import compute_host
from rally_container_bench.validity import compute_hosts as host_access


@validation.add("rcbench_sysbench_tests", param_name="tests",
                fio_here_unless="host", network_unless_param="host")
@validation.add("rcbench_local_executable", param_name="sysbench_path",
                conf_default="sysbench_path", unless_param="host")
@validation.add("rcbench_writable_directory", param_name="workdir",
                unless_param="host")
@validation.add("rcbench_host_capacity", workdir_param="workdir",
                unless_param="host")
@validation.add("rcbench_ssh_target")
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@scenario.configure(name="NativeHost.sysbench", platform="default",
                    context={"rcbench_interrupt@default": {}})
class NativeSysbench(sysbench_utils.SysbenchScenarioMixin,
                     scenario.Scenario):

    def run(self, tests, sysbench_path=None, workdir=None, timeout=None,
            host=None, port=22, user="root", key_file=None,
            identical_to_compute_hosts=False):
        """Run sysbench tests on a host: the native baseline.

        One iteration runs the tests one after another in one process
        chain, so the runner's concurrency N means N sysbench processes at
        once, exactly as N instances would each run one. Each test's run
        step is the atomic action sysbench.<test> and its metrics appear
        in the report; fileio files go to a private directory per
        iteration that is removed afterwards.

        :param tests: list of sysbench presets (e.g. "kek2015-cpu",
            "quick-memory-read"; see ``rcbench presets``), test mappings
            ({"test": "cpu", "cpu_max_prime": 20000, "time": 10}) or
            presets with overrides ({"preset": "quick-cpu", "threads": 2})
        :param sysbench_path: sysbench executable (default: the
            [container_bench] sysbench_path option, "sysbench"); a
            sysbench 0.4.x binary runs the same tests with its own syntax
        :param workdir: directory for fileio test files (default: the
            [container_bench] native_workdir option, else the system
            temporary directory); put it on the filesystem to measure
        :param timeout: seconds one sysbench command may take (default:
            the [container_bench] command_timeout option)
        :param host: run on this host over SSH instead of here: a compute
            node of the cloud, as the native baseline of a cloud run
        :param port: SSH port of host
        :param user: SSH user on host
        :param key_file: private key file of that SSH login
        :param identical_to_compute_hosts: state that this host is the
            same hardware as a cloud's compute hosts: cloud cells tested
            without a native twin on their own host then get verdicts
            against this baseline, labelled "across hosts, stated
            identical" (without it they are "not comparable")
        """
        abort.check("starting an iteration")
        conf = opts.register()
        executable = sysbench_path or conf.sysbench_path
        stated = ({host_access.STATED_IDENTICAL: True}
                  if identical_to_compute_hosts else {})
        if host:
            self._run_remote(tests, executable, workdir, timeout,
                             ssh_login.remote_host(host, port, user,
                                                   key_file), stated)
            return
        with contextlib.ExitStack() as stack:
            scratch = self._scratch_here(stack, workdir)
            ports = {}
            self.run_tests(native.NativeExecutor(), tests,
                           executable, scratch, timeout,
                           metadata=stated or None,
                           endpoint=functools.partial(
                               base.host_network_endpoint, conf, ports))

    def _run_remote(self, tests, executable, workdir, timeout, executor,
                    stated):
        """The same over SSH, in a private directory made and removed there."""
        with contextlib.closing(executor):
            scratch = executor.run(
                ["mktemp", "-d", "-p", workdir or "/tmp",
                 "rcbench-native-XXXXXX"], timeout=60).check(
                "mktemp on %s" % executor.instance.ssh_host).stdout.strip()
            # that host's load, read there (never this host's)
            view = compute_host.ComputeHost(executor.instance.ssh_host,
                                            executor, opts.register())
            try:
                self.run_tests(
                    view.owned(), tests, executable, scratch, timeout,
                    metadata=dict(stated, host=executor.instance.ssh_host),
                    host=view)
            finally:
                executor.run(["rm", "-rf", scratch], timeout=300)
