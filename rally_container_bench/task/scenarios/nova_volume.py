"""NovaInstances.boot_volume_sysbench_delete: the tests on a Cinder volume."""

import contextlib
import functools

from rally.common import logging
from rally.common import validation
from rally.task import atomic
from rally.task import types
from rally_openstack.common import consts
from rally_openstack.task import scenario

from rally_container_bench.core import abort
from rally_container_bench.core import base
from rally_container_bench.engines.openstack import cinder as cinder_driver
from rally_container_bench.engines.openstack import guest_disk
from rally_container_bench import opts
from rally_container_bench.task.scenarios import nova

LOG = logging.getLogger(__name__)

_CONTEXTS = {"cleanup@openstack": ["nova", "cinder"],
             "rcbench_interrupt@default": {}}
# What the report says of these tests' pairing (compute_hosts or not).
UNPAIRED = ("unpaired: the tests run on a Cinder volume, which has no "
            "native counterpart on the compute host")


@types.convert(flavor={"type": "nova_flavor"},
               image={"type": "glance_image"})
@nova.validators
@validation.add("required_services", services=[consts.Service.CINDER])
@validation.add("rcbench_sysbench_tests", param_name="tests")
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("number", param_name="volume_size", minval=1,
                integer_only=True)
@validation.add("rcbench_volume_type_exists", param_name="volume_type")
@scenario.configure(name="NovaInstances.boot_volume_sysbench_delete",
                    platform="openstack", context=_CONTEXTS)
class BootVolumeSysbenchDelete(nova.NovaInstancesScenario):

    def run(self, flavor, tests, volume_size=1, volume_type=None,
            image=None, network=None, floating_network=None,
            availability_zone=None, scheduler_hints=None,
            hypervisor_type="qemu", ssh_user="root", timeout=None):
        """Boot a server, attach a new volume, run the tests on it, delete.

        KEK's "volume": the phases of boot_and_delete; then a Cinder
        volume is created (atomic action volume.create), attached
        (volume.attach: until Cinder says in-use and the guest sees the
        disk), formatted ext4 and mounted, and the tests run with their
        work directory on it (sysbench fileio and fio measure the
        volume). Then volume.detach and volume.delete, before the
        server's delete. The report's rows get the tuning
        "volume-<backend>" (e.g. nova-qemu-tcg+volume-ceph).

        :param flavor: flavor ({"name": ...} or id)
        :param tests: presets or test mappings (see NativeHost.sysbench)
        :param volume_size: the volume's size in GiB
        :param volume_type: Cinder volume type (name or id), checked at
            validation; default: the cloud's default type
        :param image: image; default: the rcbench_guest context's. Its
            ssh_user must be able to run mkfs.ext4 and mount (root).
        :param network: network whose fixed IP the Rally host reaches
        :param floating_network: external network for a floating IP
        :param availability_zone: Nova availability zone
        :param scheduler_hints: Nova scheduler hints
        :param hypervisor_type: the hypervisor the image targets
        :param ssh_user: the image's login user
        :param timeout: seconds one test command may take
        """
        volumes = cinder_driver.CinderVolumes(
            self.clients("cinder"), self.clients("nova"), opts.register(),
            admin_cinder=(self.admin_clients("cinder")
                          if self.context.get("admin") else None))
        request = cinder_driver.VolumeRequest(volume_size, volume_type)
        driver = self._driver(flavor, image, network, floating_network,
                              availability_zone, scheduler_hints, ssh_user,
                              hypervisor_type)
        with self._instance(driver) as instance:
            environment = self._environment(driver, instance,
                                            hypervisor_type)
            environment["pairing"] = UNPAIRED
            with contextlib.closing(driver.executor(instance)) as executor:
                with self._volume(volumes, request, instance,
                                  executor) as facts:
                    environment.update(facts, tuning=cinder_driver.with_volume(
                        environment.get("tuning"), facts["volume_backend"]))
                    self.run_tests(executor, tests, "sysbench",
                                   guest_disk.MOUNTPOINT, timeout,
                                   metadata=environment,
                                   endpoint=functools.partial(
                                       driver.endpoint, instance))

    @contextlib.contextmanager
    def _volume(self, volumes, request, instance, executor):
        """Create, attach, mount; always detach and delete what was made.

        A failure here (or in the tests) loses no other iteration; when
        the volume cannot be removed, Rally's cleanup (its name is this
        task's) gets it after the task.
        """
        conf = opts.register()
        volume_id = attached = None
        failed = False
        try:
            with atomic.ActionTimer(self, "volume.create"):
                volume_id = volumes.create(self.generate_random_name(),
                                           request, conf.boot_timeout)
            with atomic.ActionTimer(self, "volume.attach"):
                volumes.attach(instance.id, volume_id, conf.boot_timeout)
                attached = True
                device = self._guest_device(executor, volume_id,
                                            conf.boot_timeout)
            executor.run(guest_disk.format_and_mount_argv(device),
                         conf.command_timeout).check(
                "formatting and mounting %s" % device)
            yield cinder_driver.volume_facts(volumes.describe(volume_id),
                                             request)
        except BaseException:
            failed = True
            raise
        finally:
            self._remove_volume(volumes, instance, executor, volume_id,
                                attached, failed, conf)

    def _remove_volume(self, volumes, instance, executor, volume_id,
                       attached, failed, conf):
        if volume_id is None:
            return
        try:
            with abort.shielded():
                self._detach_and_delete(volumes, instance, executor,
                                        volume_id, attached, conf)
        except Exception as e:
            if not failed:
                raise
            LOG.warning("volume %s was not removed after the iteration "
                        "failed (Rally's cleanup gets it): %s"
                        % (volume_id, e))

    def _detach_and_delete(self, volumes, instance, executor, volume_id,
                           attached, conf):
        if attached:
            with contextlib.suppress(base.DriverError):
                executor.run(guest_disk.unmount_argv(), 120)
            with atomic.ActionTimer(self, "volume.detach"):
                volumes.detach(instance.id, volume_id, conf.delete_timeout)
        with atomic.ActionTimer(self, "volume.delete"):
            volumes.delete(volume_id, conf.delete_timeout)

    @staticmethod
    def _guest_device(executor, volume_id, timeout):
        def found():
            result = executor.run(guest_disk.find_device_argv(volume_id), 60)
            return guest_disk.parse_device(result.stdout)
        return base.wait_until(found, timeout, 1.0,
                               "the guest sees volume %s" % volume_id)
