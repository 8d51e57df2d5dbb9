"""NovaInstances: servers on any Nova hypervisor, phase by phase."""


from rally.common import logging
from rally.common import validation
from rally.task import types
from rally_openstack.common import consts
from rally_openstack.task import scenario

from rally_container_bench.engines.openstack import nova as nova_driver
from rally_container_bench.engines.openstack import nova_facts
from rally_container_bench import opts
from rally_container_bench.task.scenarios import cloud
from rally_container_bench.task.scenarios import phases
from rally_container_bench.task.scenarios import sysbench_utils

LOG = logging.getLogger(__name__)

_CONTEXTS = {"cleanup@openstack": ["nova"],
             "rcbench_interrupt@default": {}}

# A Linux guest offers the kvm-clock clocksource only under KVM: how the
# report tells a QEMU server under KVM from one under TCG (Nova reports
# hypervisor type QEMU for both).
_CLOCKSOURCES = "/sys/devices/system/clocksource/clocksource0/" \
                "available_clocksource"
_VM_RUNTIMES = ("qemu", "kvm")


class NovaInstancesScenario(cloud.CloudInstanceMixin,
                            phases.InstancePhasesMixin,
                            sysbench_utils.SysbenchScenarioMixin,
                            scenario.OpenStackScenario):
    """Build, network (ping, then SSH), delete of one Nova server."""

    def _driver(self, flavor, image, network, floating_network,
                availability_zone, scheduler_hints, ssh_user,
                hypervisor_type=None, spread=False):
        if spread:
            availability_zone = self._spread_zone(availability_zone,
                                                  hypervisor_type)
        guest = self.context["tenant"].get("rcbench_guest", {})
        # nova-docker's image authorizes the guest image's key itself
        site_image = bool(image) and hypervisor_type != "docker"
        image = image or guest.get("image")
        with open(guest["private_key_file"]) as f:
            private_key = f.read()
        network_id, network_name = self._network_ref(network)
        request = nova_driver.BootRequest(
            image=image, flavor=flavor, network=network_id,
            key_name=guest.get("key_name"),
            security_groups=self._security_groups(),
            availability_zone=availability_zone,
            scheduler_hints=scheduler_hints,
            floating_network=self._network_ref(floating_network)[0],
            ssh_user=ssh_user, hypervisor_type=hypervisor_type,
            config_drive=guest.get("config_drive", False),
            site_image=site_image,
            key_origin=guest.get("key_origin",
                                 "the key pair of rcbench_guest"))
        return nova_driver.NovaDriver(
            self.clients("nova"), request, private_key, opts.register(),
            neutron=self.clients("neutron") if floating_network else None,
            network_name=network_name, admin_nova=self._admin_nova())

    def _spread_zone(self, availability_zone, hypervisor_type):
        """zone:host of this iteration's compute host, in turn.

        Iteration i boots on the i-th compute host of the hypervisor type
        (round robin, hosts sorted by name), so a step's instances land on
        every host of the kind, as KEK's and Browbeat's runs place them.
        Nova's policy lets admins only force a host (validation says so
        where the task's users may not).
        """
        hosts = nova_driver.compute_hosts(self._admin_nova(),
                                          hypervisor_type)
        names = sorted(hosts)
        host = names[(self.context.get("iteration", 1) - 1) % len(names)]
        return "%s:%s" % (availability_zone or hosts[host], host)

    def _admin_nova(self):
        """The admin's novaclient, or None in an env without admin."""
        if not self.context.get("admin"):
            return None
        return self.admin_clients("nova")

    def _security_groups(self):
        secgroup = self.context["user"].get("secgroup")
        return (secgroup["name"],) if secgroup else ()

    def _environment(self, driver, instance, hypervisor_type):
        """Where the server ran: compute host, hypervisor, acceleration."""
        facts = driver.describe()
        facts["hypervisor_type_requested"] = hypervisor_type
        admin_nova = self._admin_nova()
        if admin_nova is not None:
            server = admin_nova.servers.get(instance.id)
            facts.update(nova_facts.hypervisor_facts(admin_nova, server))
        facts.update(nova_facts.flavor_tuning(
            self._extra_specs(admin_nova, driver.request.flavor)))
        warm = self.context.get("rcbench_nova_warmup")
        if warm:
            facts["image_cache"] = warm.get(facts.get("compute_host")) \
                or warm.get("*") or "not warmed (host not known)"
        runtime = facts.get("runtime") or hypervisor_type
        facts["runtime"] = runtime
        if runtime in _VM_RUNTIMES:
            facts["acceleration"] = self._acceleration(driver, instance)
        return facts

    def _extra_specs(self, admin_nova, flavor):
        """The flavor's extra specs ({} where they cannot be read)."""
        nova = admin_nova or self.clients("nova")
        try:
            return nova.flavors.get(flavor).get_keys()
        except Exception as e:  # a fact for the report, never a failure
            LOG.warning("extra specs of flavor %s unreadable: %s", flavor, e)
            return {}

    @staticmethod
    def _acceleration(driver, instance):
        executor = driver.executor(instance)
        try:
            result = executor.run(["cat", _CLOCKSOURCES], timeout=60)
        finally:
            executor.close()
        if result.exit_code != 0:
            return None
        return "kvm" if "kvm-clock" in result.stdout else "tcg"


def home_of(user):
    """A login user's home where cloud images make it."""
    return "/root" if user == "root" else "/home/%s" % user


def validators(cls):
    """The validators every NovaInstances scenario has."""
    for add in reversed([
            validation.add("required_services",
                           services=[consts.Service.NOVA,
                                     consts.Service.NEUTRON]),
            validation.add("required_platform", platform="openstack",
                           users=True),
            validation.add("required_contexts", contexts=["rcbench_guest"]),
            validation.add("enum", param_name="hypervisor_type",
                           values=["qemu", "kvm", "lxc", "docker", "ironic"],
                           missed=True),
            validation.add("rcbench_nova_image_or_upload",
                           param_name="image"),
            validation.add("flavor_exists", param_name="flavor"),
            validation.add("image_exists", param_name="image",
                           nullable=True),
            validation.add("rcbench_site_image", param_name="image"),
            validation.add("rcbench_network_exists", param_name="network"),
            validation.add("rcbench_network_exists",
                           param_name="floating_network"),
            validation.add("rcbench_nova_quota"),
            validation.add("rcbench_nova_capacity"),
            validation.add("rcbench_spread", param_name="spread"),
    ]):
        cls = add(cls)
    return cls


@types.convert(flavor={"type": "nova_flavor"},
               image={"type": "glance_image"})
@validators
@scenario.configure(name="NovaInstances.boot_and_delete",
                    platform="openstack", context=_CONTEXTS)
class BootAndDelete(NovaInstancesScenario):

    def run(self, flavor, image=None, network=None, floating_network=None,
            availability_zone=None, scheduler_hints=None,
            hypervisor_type="qemu", ssh_user="root", spread=False):
        """Boot a server, wait for ping and SSH, delete it (KEK's scenario).

        Atomic actions: build (POST -> ACTIVE, polled every
        [container_bench] nova_poll_interval s), network with its steps
        ping (ACTIVE -> ICMP echo answered) and ssh (-> a login works),
        delete (DELETE -> Nova no longer lists it). The server's own
        ``created``, ``launched_at`` and instance-action events are in the
        "engine timestamps" table.

        :param flavor: flavor ({"name": ...} or id)
        :param image: image ({"name": ...} or id); default: the one the
            rcbench_guest context uploaded
        :param network: network (name or id) whose fixed IP the Rally host
            reaches (a provider network); default: Nova's choice
        :param floating_network: external network (name or id): reach the
            server at a floating IP from it instead of its fixed IP
        :param availability_zone: Nova availability zone (e.g. the one of
            the container compute hosts)
        :param scheduler_hints: Nova scheduler hints
        :param hypervisor_type: the hypervisor the image targets (qemu,
            kvm, lxc, docker, ironic): recorded as the runtime when the
            task's users cannot read the hypervisor (admin-only)
        :param ssh_user: the image's login user
        :param spread: boot iteration i on the i-th compute host of the
            hypervisor type in turn (availability zone "zone:host"), so
            a step's servers land on every host of the kind; forcing a
            host is admin-only in Nova's default policy
        """
        driver = self._driver(flavor, image, network, floating_network,
                              availability_zone, scheduler_hints, ssh_user,
                              hypervisor_type, spread)
        with self._instance(driver) as instance:
            self.add_environment(
                self._environment(driver, instance, hypervisor_type))


@types.convert(flavor={"type": "nova_flavor"},
               image={"type": "glance_image"})
@validators
@validation.add("rcbench_sysbench_tests", param_name="tests")
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("rcbench_compute_hosts", param_name="compute_hosts",
                service="nova")
@validation.add("number", param_name="repeat", minval=1, integer_only=True,
                nullable=True)
@validation.add("rcbench_pairing", param_name="pairing",
                twin_param="compute_hosts")
@scenario.configure(name="NovaInstances.boot_sysbench_delete",
                    platform="openstack", context=_CONTEXTS)
class BootSysbenchDelete(NovaInstancesScenario):

    def run(self, flavor, tests, image=None, network=None,
            floating_network=None, availability_zone=None,
            scheduler_hints=None, hypervisor_type="qemu", ssh_user="root",
            workdir=None, timeout=None, compute_hosts=None, repeat=1,
            spread=False, pairing=None):
        """Boot a server, run sysbench inside it over SSH, delete it.

        The phases of boot_and_delete, and between network and delete
        each sysbench test as the atomic action sysbench.<test> with its
        metrics in the report: KEK's "boot a server and run sysbench".
        With compute_hosts, each test is paired with a native twin on
        the server's compute host and that host's foreign load is read
        around it (admin credentials tell the host).

        :param flavor: flavor ({"name": ...} or id)
        :param tests: sysbench presets or test mappings (see
            NativeHost.sysbench)
        :param image: image; default: the rcbench_guest context's
        :param network: network whose fixed IP the Rally host reaches
        :param floating_network: external network for a floating IP
        :param availability_zone: Nova availability zone
        :param scheduler_hints: Nova scheduler hints
        :param hypervisor_type: the hypervisor the image targets
        :param ssh_user: the image's login user
        :param workdir: directory inside the server for fileio files
            (default: ssh_user's home, /root or /home/<ssh_user>)
        :param timeout: seconds one sysbench command may take
        :param compute_hosts: how the Rally host logs in to the compute
            hosts ({address: "{host}", port, user, key_file, sysbench,
            workdir, hosts: {name: {...}}}); without it the tests are
            unpaired and the report says so
        :param repeat: measure each test (with its twin) this many times
            in the server: more pairs per boot (rcbench decide sets it
            where a boot costs more than a test)
        :param spread: boot on every compute host of the kind in turn
            (see boot_and_delete)
        :param pairing: with compute_hosts, how a test meets its twin:
            "sequential" (default), "at-once" (cpu and memory tests
            together with the twin on another core of the server's host,
            released at one instant: the server's vCPU pinned by its
            flavor, hw:cpu_policy dedicated, and a core free of the host's
            instances for the twin), or a mapping of kind to mode. Where
            the host cannot, the test pairs in sequence and says why
        """
        driver = self._driver(flavor, image, network, floating_network,
                              availability_zone, scheduler_hints, ssh_user,
                              hypervisor_type, spread)
        with self._instance(driver) as instance:
            environment = self._environment(driver, instance,
                                            hypervisor_type)
            self._tests_on_compute_host(driver, instance, environment,
                                        compute_hosts, tests,
                                        workdir or home_of(ssh_user),
                                        timeout, repeat, pairing)
