"""The life of one instance as Rally atomic actions, for every driver.

build (create request -> running), network (running -> reachable; a
driver may time sub-steps inside it), cloud_init (where a guest of its own
kernel has cloud-init: until it is done), delete (delete request -> gone).
The same names for every engine, so reports line up across platforms.
"""

import contextlib

from rally.common import logging
from rally.task import atomic

from rally_container_bench.core import abort
from rally_container_bench.core import base
from rally_container_bench.core import cloud_init
from rally_container_bench import opts
from rally_container_bench.task import output_tables as tables
from rally_container_bench.validity import hosts

LOG = logging.getLogger(__name__)


class InstancePhasesMixin:

    def _network(self, driver, instance, conf):
        """The network phase's work: an SSH login by default."""
        driver.wait_reachable(instance, conf.ssh_timeout)

    @contextlib.contextmanager
    def _instance(self, driver, network=True):
        """Boot (build + network); always delete, timed when it booted.

        network=False: no network phase (an instance that is not reached
        over the network, e.g. one whose command is the workload).

        When the iteration already failed and the delete fails too (e.g.
        the engine died), the iteration reports the first error; the
        cleanup context (or ``rcbench cleanup``, Rally's cleanup in a
        cloud) gets the instance later.
        """
        conf = opts.register()
        instance = None
        failed = False
        own = hosts.LocalHost(conf)
        try:
            # An iteration Rally starts after an abort creates nothing.
            abort.check("starting an iteration")
            with atomic.ActionTimer(self, "build"):
                instance = driver.create(self.generate_random_name())
                driver.wait_running(instance, conf.boot_timeout)
            if network:
                with atomic.ActionTimer(self, "network"):
                    self._network(driver, instance, conf)
                if driver.own_kernel:
                    if self._guest_boot_time(driver, instance):
                        self._cloud_init(driver, instance, conf)
            driver.record_engine_times(instance)
            _register(own, driver, instance)
            yield instance
            _check_kept(driver, instance)
        except BaseException as e:
            failed = True
            # Not at the start barrier (never booted, or failed between
            # tests): the rest of its wave does not wait for it.
            leave = getattr(self, "_leave_start_barrier", None)
            if leave is not None:
                leave()
            if isinstance(e, Exception) and instance is not None:
                # what went wrong inside, told by what the engine lost
                _check_kept(driver, instance, e)
            raise
        finally:
            if instance is not None:
                own.discard(instance.name)
                try:
                    # Also when the task is being aborted: nothing stays.
                    with abort.shielded(), atomic.ActionTimer(self, "delete"):
                        driver.delete(instance)
                        driver.wait_deleted(instance, conf.delete_timeout)
                except Exception as e:
                    if not failed:
                        raise
                    LOG.warning("%s (id %s) was not deleted after the "
                                "iteration failed: %s; the task's cleanup "
                                "tries again, or rcbench cleanup (--env "
                                "for a cloud)" % (instance.name,
                                                  instance.id, e))
                self.add_output(complete=engine_times_table(
                    instance, driver.engine_times_note))

    def _guest_boot_time(self, driver, instance):
        """The guest's uptime at its first login: boot time seen inside.

        True where the guest has cloud-init (asked in the same command).
        """
        try:
            with contextlib.closing(driver.executor(instance)) as executor:
                result = executor.run(["sh", "-c", "cat /proc/uptime; "
                                       "command -v cloud-init || true"], 60)
            boot = float(result.stdout.split()[0])
        except (base.DriverError, ValueError, IndexError) as e:
            LOG.warning("%s: no boot time read inside: %s"
                        % (instance.name, e))
            return False
        self.add_output(complete={
            "title": tables.GUEST,
            "description": "Read inside the guest at its first login "
                           "(/proc/uptime): its kernel's time since boot, "
                           "free of the harness's polling",
            "chart_plugin": "Table",
            "data": {"cols": ["boot_s"], "rows": [[round(boot, 3)]]}})
        return "cloud-init" in result.stdout

    def _cloud_init(self, driver, instance, conf):
        """Wait for the guest's cloud-init before any test: timed apart.

        A site's image goes on configuring itself after its first login;
        a test then would share the guest's CPU with it.
        """
        with contextlib.closing(driver.executor(instance)) as executor:
            with atomic.ActionTimer(self, "cloud_init"):
                status = cloud_init.wait(executor, conf.boot_timeout)
        LOG.info("%s: cloud-init done: %s" % (instance.name, status))


class EngineLost(base.DriverError):
    """The engine lost the instance (its shim or conmon died)."""


def _check_kept(driver, instance, error=None):
    """EngineLost if the engine lost the instance during its work."""
    if isinstance(error, EngineLost):
        return
    why = driver.lost(instance)
    if why is None:
        return
    message = "%s: %s" % (instance.name, why)
    if error is not None:
        message += "; the iteration's own error: %s" % error
    raise EngineLost(message) from error


def _register(host, driver, instance):
    """The instance's CPU on host counts as the task's own from now on."""
    try:
        host.register(instance.name, driver, instance)
    except base.DriverError as e:
        LOG.warning("%s: its CPU is not told apart from foreign load on "
                    "%s: %s" % (instance.name, host.name, e))


def engine_times_table(instance, note):
    rows = [[key, "" if value is None else "%.6f" % value]
            for key, value in sorted(instance.engine_times.items())]
    return {"title": "engine timestamps",
            "description": "%s, for %s" % (note, instance.name),
            "chart_plugin": "Table",
            "data": {"cols": ["event", "epoch_s"], "rows": rows}}
