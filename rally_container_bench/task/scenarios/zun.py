"""ZunContainers: containers through OpenStack's container service, phase
by phase, lined up with NovaInstances and the native baseline."""


from rally.common import validation
from rally_openstack.common import consts
from rally_openstack.task import scenario

from rally_container_bench.engines.openstack import zun as zun_driver
from rally_container_bench import opts
from rally_container_bench.task.scenarios import cloud
from rally_container_bench.task.scenarios import phases
from rally_container_bench.task.scenarios import sysbench_utils
from rally_container_bench.workloads.sysbench import script as sysbench_script

_CONTEXTS = {"rcbench_zun@openstack": {},
             "rcbench_interrupt@default": {}}


class ZunContainersScenario(cloud.CloudInstanceMixin,
                            phases.InstancePhasesMixin,
                            sysbench_utils.SysbenchScenarioMixin,
                            scenario.OpenStackScenario):
    """Build, network (ping, then SSH), delete of one Zun container."""

    def _request(self, image, network, cpu, memory, runtime,
                 availability_zone, hints, ssh_user, command=None,
                 image_driver="glance", image_pull_policy=None):
        guest = self.context["tenant"].get("rcbench_guest", {})
        image_pull_policy = zun_driver.resolve_pull_policy(
            image_pull_policy, self.context.get("admin"))
        fields = dict(
            image=image or guest.get("image_name"),
            image_driver=image_driver, image_pull_policy=image_pull_policy,
            network=self._network_ref(network)[0],
            security_groups=self._security_groups(
                runtime or image_pull_policy),
            cpu=cpu, memory=memory, runtime=runtime,
            availability_zone=availability_zone, hints=hints,
            ssh_user=ssh_user)
        if command is not None:
            fields["command"] = tuple(command)
        return zun_driver.ContainerRequest(**fields)

    def _driver(self, request, exits=False):
        guest = self.context["tenant"].get("rcbench_guest", {})
        with open(guest["private_key_file"]) as f:
            private_key = f.read()
        admin = self.context.get("admin")
        return zun_driver.ZunDriver(
            self.clients("zun"), request, private_key, opts.register(),
            admin_zun=self.admin_clients("zun") if admin else None,
            admin_neutron=self.admin_clients("neutron") if admin else None,
            exits=exits)

    def _security_groups(self, as_admin):
        if as_admin:
            # The admin owns the container: a group of the admin's project
            # (rcbench_zun made it), by id.
            group = self.context.get("rcbench_zun", {}).get(
                "admin_secgroup_id")
            return (group,) if group else ()
        secgroup = self.context["user"].get("secgroup")
        return (secgroup["id"],) if secgroup else ()

    def _environment(self, driver, instance):
        facts = driver.describe()
        facts.update({key: value for key, value
                      in driver.where(instance).items() if value})
        # Without the admin's eyes Zun does not say which runtime ran it.
        facts.setdefault("runtime", driver.request.runtime or None)
        warm = (self.context.get("rcbench_zun_warmup") or {}).get("seconds")
        if warm:
            seconds = warm.get(facts.get("compute_host"), warm.get("any"))
            facts["image_cache"] = (
                "not warmed here" if seconds is None else
                "cached by an earlier workload of the task" if not seconds
                else "warmed before the workload by rcbench_zun_warmup "
                     "(%.1f s)" % seconds)
        return facts


def _validators(cls):
    """The validators every ZunContainers scenario has."""
    for add in reversed([
            validation.add("required_services",
                           services=[consts.Service.NEUTRON]),
            validation.add("required_platform", platform="openstack",
                           users=True),
            validation.add("rcbench_zun_ready"),
            validation.add("rcbench_zun_runtime", param_name="runtime"),
            validation.add("required_contexts", contexts=["rcbench_guest"]),
            validation.add("rcbench_zun_image", param_name="image"),
            validation.add("rcbench_zun_capacity"),
            validation.add("enum", param_name="image_driver",
                           values=["glance", "docker"], missed=True),
            validation.add("enum", param_name="image_pull_policy",
                           values=list(zun_driver.PULL_POLICIES),
                           missed=True),
            validation.add("rcbench_zun_pull_policy"),
            validation.add("number", param_name="cpu", minval=0.01,
                           nullable=True, integer_only=False),
            validation.add("number", param_name="memory", minval=4,
                           nullable=True, integer_only=True),
            validation.add("rcbench_network_exists", param_name="network"),
    ]):
        cls = add(cls)
    return cls


@_validators
@scenario.configure(name="ZunContainers.run_and_delete",
                    platform="openstack", context=_CONTEXTS)
class RunAndDelete(ZunContainersScenario):

    def run(self, image=None, network=None, cpu=None, memory=None,
            runtime=None, availability_zone=None, hints=None,
            ssh_user="root", image_driver="glance", image_pull_policy=None):
        """Run a Zun container, wait for ping and SSH, delete it.

        Atomic actions: build (create request -> status Running, polled
        every [container_bench] nova_poll_interval s), network with its
        steps ping and ssh (the container's command is the guest image's
        sshd), delete (forced DELETE -> Zun no longer knows it). Zun's
        own created/started times and container-action events are in the
        "engine timestamps" table.

        :param image: Glance image name of container_format docker;
            default: the one the rcbench_guest context uploaded
            (hypervisor_type docker)
        :param network: Neutron network (name or id) whose addresses the
            Rally host reaches; default: Zun's choice
        :param cpu: CPUs of the container (float)
        :param memory: memory of the container, MiB
        :param runtime: OCI runtime, e.g. runc or kata-runtime (as the
            kata-vs-runc HTTP study compares them); admin-only under Zun's
            default policy: the environment needs admin credentials. Default:
            the compute host's default
        :param availability_zone: Zun availability zone
        :param hints: Zun scheduler hints
        :param ssh_user: the image's login user
        :param image_driver: glance (default: the image is a Glance
            image) or docker (an image the compute hosts' Docker has or
            pulls: give its name as image)
        :param image_pull_policy: Zun's always, ifnotpresent or never;
            admin-only under Zun's default policy (the container is then
            the admin's); or auto: ifnotpresent where the environment has
            admin credentials, else Zun's default. Default: Zun's
            ("always": every container downloads and loads the image
            again; validation refuses a step whose loads would not fit
            the boot timeout). ifnotpresent at more than one at once
            needs the rcbench_zun_warmup context (the task file adds it)
        """
        request = self._request(image, network, cpu, memory, runtime,
                                availability_zone, hints, ssh_user,
                                image_driver=image_driver,
                                image_pull_policy=image_pull_policy)
        driver = self._driver(request)
        with self._instance(driver) as instance:
            self.add_environment(self._environment(driver, instance))


@_validators
@validation.add("rcbench_sysbench_tests", param_name="tests",
                sysbench_only_if=("via", "logs"))
@validation.add("enum", param_name="via", values=["ssh", "logs"],
                missed=True)
@validation.add("number", param_name="timeout", minval=1, nullable=True)
@validation.add("rcbench_compute_hosts", param_name="compute_hosts",
                service="zun")
@validation.add("number", param_name="repeat", minval=1, integer_only=True,
                nullable=True)
@validation.add("rcbench_pairing", param_name="pairing",
                twin_param="compute_hosts")
@scenario.configure(name="ZunContainers.run_sysbench_delete",
                    platform="openstack", context=_CONTEXTS)
class RunSysbenchDelete(ZunContainersScenario):

    def run(self, tests, image=None, network=None, cpu=None, memory=None,
            runtime=None, availability_zone=None, hints=None,
            ssh_user="root", workdir="/root", timeout=None, via="ssh",
            image_driver="glance", image_pull_policy=None,
            compute_hosts=None, repeat=1, pairing=None):
        """Run a Zun container, run sysbench in it, delete it.

        via ssh (default): the phases of run_and_delete, then each
        sysbench test over SSH as the atomic action sysbench.<test>.
        Zun's exec API stops a command after [docker] execute_timeout
        (5 s by default), too short for sysbench: hence SSH.

        via logs: sysbench is the container's command (a shell script
        running every test, with markers); build ends when the container
        started, then the scenario waits for it to stop and reads its
        logs. No network phase; each sysbench.<test> action carries the
        times the script measured inside the container.

        :param tests: sysbench presets or test mappings (see
            NativeHost.sysbench)
        :param image: Glance image (container_format docker); default:
            the rcbench_guest context's
        :param network: Neutron network whose addresses the Rally host
            reaches
        :param cpu: CPUs of the container
        :param memory: memory of the container, MiB
        :param runtime: OCI runtime (admin-only, see run_and_delete)
        :param availability_zone: Zun availability zone
        :param hints: Zun scheduler hints
        :param ssh_user: the image's login user
        :param workdir: directory inside the container for fileio files
        :param timeout: seconds one sysbench command may take
        :param via: "ssh" or "logs"
        :param image_driver: glance or docker (see run_and_delete)
        :param image_pull_policy: see run_and_delete (admin-only)
        :param compute_hosts: how the Rally host logs in to the Zun
            compute hosts (see NovaInstances.boot_sysbench_delete): each
            test over SSH is then paired with a native twin on the
            container's host, and that host's load is read
        :param repeat: measure each test (with its twin) this many times
            in the container (via ssh)
        :param pairing: with compute_hosts, as NovaInstances'
            boot_sysbench_delete's; a container's CPUs on its host are not
            read, so asked at once it pairs in sequence and says why
        """
        if via == "logs":
            self._via_logs(tests, image, network, cpu, memory, runtime,
                           availability_zone, hints, workdir, timeout,
                           image_driver, image_pull_policy)
            return
        request = self._request(image, network, cpu, memory, runtime,
                                availability_zone, hints, ssh_user,
                                image_driver=image_driver,
                                image_pull_policy=image_pull_policy)
        driver = self._driver(request)
        with self._instance(driver) as instance:
            environment = self._environment(driver, instance)
            self._tests_on_compute_host(driver, instance, environment,
                                        compute_hosts, tests, workdir,
                                        timeout, repeat, pairing)

    def _via_logs(self, tests, image, network, cpu, memory, runtime,
                  availability_zone, hints, workdir, timeout, image_driver,
                  image_pull_policy):
        plan = sysbench_script.Plan.of(tests, workdir)
        request = self._request(image, network, cpu, memory, runtime,
                                availability_zone, hints, "root",
                                command=plan.command(),
                                image_driver=image_driver,
                                image_pull_policy=image_pull_policy)
        driver = self._driver(request, exits=True)
        conf = opts.register()
        with self._instance(driver, network=False) as instance:
            limit = (timeout or conf.command_timeout) * plan.step_count
            driver.wait_exited(instance, limit)
            self._replay = plan.replay(driver.logs(instance))
            environment = dict(
                self._environment(driver, instance), via="logs",
                pairing="unpaired: sysbench ran as the container's command "
                        "(via logs), with no twin beside it")
            # The tests ran as the container's command: nothing to start.
            self.run_tests(self._replay, tests, "sysbench",
                           workdir, timeout, metadata=environment,
                           synchronised=False)

    def _timed(self, name):
        replay = getattr(self, "_replay", None)
        if replay is None:
            return super()._timed(name)

        def record(started, finished):
            # The run's duration as the script measured it in the
            # container: an atomic action with those times.
            self.atomic_actions().append({
                "name": name, "children": [],
                "started_at": started, "finished_at": finished})
        return replay.timed(record)
