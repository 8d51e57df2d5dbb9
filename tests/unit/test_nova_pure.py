"""The parts of the Nova driver and the rcbench_guest context that need no
cloud. The driver itself runs against the real all-in-one cloud in
tests/functional_openstack; the novaclient below is a stand-in only for the
error paths a healthy cloud never takes."""

import unittest
from unittest import mock

from rally import plugins as rally_plugins

from rally_container_bench.core import base
from rally_container_bench.engines.openstack import api
from rally_container_bench.engines.openstack import nova
from rally_container_bench.engines.openstack import nova_facts
from rally_container_bench.images import guest
from rally_container_bench.report import results
from tests.unit.test_drivers_pure import conf


class TimestampTestCase(unittest.TestCase):

    def test_action_events(self):
        actions = [{"action": "create", "events": [
            {"event": "compute__do_build_and_run_instance",
             "start_time": "2026-11-22T20:03:29.000000",
             "finish_time": "2026-11-22T20:03:41.250000"}]},
            {"action": "delete", "events": None}]
        times = api.action_event_times(actions)
        key = "create.compute__do_build_and_run_instance"
        self.assertEqual(12.25, times[key + ".finish"]
                         - times[key + ".start"])
        self.assertEqual(2, len(times))


class AddressTestCase(unittest.TestCase):

    ADDRESSES = {
        "rcbench-provider": [
            {"version": 6, "addr": "fd00::5", "OS-EXT-IPS:type": "fixed"},
            {"version": 4, "addr": "10.117.0.150",
             "OS-EXT-IPS:type": "fixed"}],
        "other": [{"version": 4, "addr": "192.0.2.7",
                   "OS-EXT-IPS:type": "floating"},
                  {"version": 4, "addr": "10.1.0.3"}],
    }

    def test_first_fixed_ipv4_of_the_named_network(self):
        self.assertEqual("10.117.0.150",
                         nova.fixed_ipv4(self.ADDRESSES, "rcbench-provider"))
        self.assertEqual("10.1.0.3", nova.fixed_ipv4(self.ADDRESSES, "other"))
        self.assertIsNone(nova.fixed_ipv4(self.ADDRESSES, "missing"))

    def test_without_a_network_name_any_fixed_ipv4(self):
        self.assertEqual("10.1.0.3", nova.fixed_ipv4(self.ADDRESSES))


class ServerErrorTestCase(unittest.TestCase):
    """Stand-in novaclient: servers in states a healthy cloud avoids.

    ERROR, ACTIVE without an address, never ACTIVE. The real cloud is in
    tests/functional_openstack.
    """

    def driver(self, server):
        client = mock.Mock()
        client.servers.get.return_value = server
        client.servers.list.return_value = []
        request = nova.BootRequest(image="img", flavor="fl", network="net")
        return nova.NovaDriver(client, request, "KEY",
                               conf(nova_poll_interval=0.05),
                               network_name="net")

    def test_servers_of_container_hypervisors_share_the_hosts_kernel(self):
        for hypervisor, own in (("qemu", True), ("kvm", True),
                                ("lxc", False), ("docker", False)):
            request = nova.BootRequest(image="i", flavor="f",
                                       hypervisor_type=hypervisor)
            driver = nova.NovaDriver(mock.Mock(), request, "KEY", conf())
            self.assertEqual(own, driver.own_kernel, hypervisor)

    def test_a_libvirt_lxc_servers_disk_is_served_by_the_hosts_kernel(self):
        # its disk on a loop device of the compute host: its kernel
        # threads are the task's own there, and the report says why its
        # O_DIRECT figures read the host's page cache
        for hypervisor, in_kernel in (("lxc", True), ("qemu", False),
                                      (None, False)):
            request = nova.BootRequest(image="i", flavor="f",
                                       hypervisor_type=hypervisor)
            driver = nova.NovaDriver(mock.Mock(), request, "KEY", conf())
            self.assertEqual(in_kernel, driver.disk_in_host_kernel(None))
            self.assertEqual(in_kernel, "page cache" in
                             driver.describe().get("disk_io", ""))

    def test_a_busy_apis_failed_poll_is_polled_again(self):
        # nova-api's workers all busy at 32 at once: a connect timeout
        # (or an HTTP 5xx) says nothing of the server.
        from keystoneauth1 import exceptions as ks_exceptions
        from novaclient import exceptions as nova_exceptions
        active = mock.Mock(status="ACTIVE", addresses={"net": [
            {"addr": "10.0.0.7", "version": 4,
             "OS-EXT-IPS:type": "fixed"}]})
        driver = self.driver(active)
        driver.nova.servers.get.side_effect = [
            ks_exceptions.ConnectTimeout("timed out"),
            nova_exceptions.ClientException(503), active]
        instance = base.Instance(name="s1", id="id1")
        driver.wait_running(instance, timeout=30)
        self.assertEqual("10.0.0.7", instance.ssh_host)
        # a 4xx is no busy API: it fails the wait at once
        driver.nova.servers.get.side_effect = [
            nova_exceptions.Forbidden(403)]
        with self.assertRaises(nova_exceptions.Forbidden):
            driver.wait_running(base.Instance(name="s2", id="id2"), 30)

    def test_error_state_fails_at_once_with_the_fault(self):
        server = mock.Mock(status="ERROR", fault={"message": "No valid host"})
        driver = self.driver(server)
        instance = base.Instance(name="s1", id="id1")
        with self.assertRaisesRegex(base.DriverError,
                                    "s1 went to ERROR: No valid host"):
            driver.wait_running(instance, timeout=30)
        self.assertEqual(1, driver.nova.servers.get.call_count)

    def test_exhausted_hosts_say_where_to_look(self):
        server = mock.Mock(status="ERROR", fault={
            "message": "Exceeded maximum number of retries. Exhausted all "
                       "hosts available for retrying build failures for "
                       "instance x."})
        with self.assertRaisesRegex(base.DriverError,
                                    "ResourceProviderUpdateConflict there"):
            self.driver(server).wait_running(
                base.Instance(name="s1", id="id1"), timeout=30)

    def test_active_without_an_address_is_an_error(self):
        server = mock.Mock(status="ACTIVE", addresses={})
        with self.assertRaisesRegex(base.DriverError, "without an IPv4"):
            self.driver(server).wait_running(
                base.Instance(name="s1", id="id1"), timeout=30)

    def test_active_sets_the_ssh_host(self):
        server = mock.Mock(status="ACTIVE", addresses={"net": [
            {"version": 4, "addr": "10.117.0.9"}]})
        instance = base.Instance(name="s1", id="id1")
        self.driver(server).wait_running(instance, timeout=30)
        self.assertEqual("10.117.0.9", instance.ssh_host)

    def test_polls_between_whole_reads_ask_the_brief_list(self):
        # A server read costs Nova two Neutron requests; the brief list
        # by name and status none. The first poll reads the whole server
        # (an ERROR at once), later ones the list until it shows ACTIVE.
        building = mock.Mock(status="BUILD")
        active = mock.Mock(status="ACTIVE", addresses={"net": [
            {"version": 4, "addr": "10.117.0.9"}]})
        driver = self.driver(building)
        driver.nova.servers.get.side_effect = [building, active]
        driver.nova.servers.list.side_effect = [
            [], [mock.Mock(id="other-server")], [mock.Mock(id="id1")]]
        instance = base.Instance(name="s1.x", id="id1")
        driver.wait_running(instance, timeout=30)
        self.assertEqual("10.117.0.9", instance.ssh_host)
        self.assertEqual(2, driver.nova.servers.get.call_count)
        self.assertEqual(3, driver.nova.servers.list.call_count)
        driver.nova.servers.list.assert_called_with(
            detailed=False,
            search_opts={"name": r"^s1\.x$", "status": "ACTIVE"})

    def test_a_server_that_stays_in_build_is_read_whole_now_and_then(self):
        server = mock.Mock(status="BUILD")
        driver = self.driver(server)
        with self.assertRaises(base.DriverError):
            driver.wait_running(base.Instance(name="s1", id="id1"),
                                timeout=1.2)
        polls = (driver.nova.servers.get.call_count
                 + driver.nova.servers.list.call_count)
        self.assertGreater(polls, nova.READ_WHOLE_EVERY)
        self.assertEqual(-(-polls // nova.READ_WHOLE_EVERY),
                         driver.nova.servers.get.call_count)

    def test_deleted_once_the_brief_list_no_longer_shows_it(self):
        server = mock.Mock(status="ACTIVE")
        driver = self.driver(server)
        driver.nova.servers.list.side_effect = [[mock.Mock(id="id1")], []]
        driver.wait_deleted(base.Instance(name="s1", id="id1"), timeout=30)
        self.assertEqual(1, driver.nova.servers.get.call_count)
        driver.nova.servers.list.assert_called_with(
            detailed=False, search_opts={"name": "^s1$"})

    def test_error_while_deleting_is_seen_at_a_whole_read(self):
        server = mock.Mock(status="ERROR")
        driver = self.driver(server)
        driver.nova.servers.list.return_value = [mock.Mock(id="id1")]
        with self.assertRaisesRegex(base.DriverError,
                                    "ERROR while being deleted"):
            driver.wait_deleted(base.Instance(name="s1", id="id1"),
                                timeout=30)

    def test_build_timeout(self):
        server = mock.Mock(status="BUILD")
        with self.assertRaisesRegex(base.DriverError, "ACTIVE: not within"):
            self.driver(server).wait_running(
                base.Instance(name="s1", id="id1"), timeout=0.2)


class SettledActionsTestCase(unittest.TestCase):
    """An event's finish may come a moment after the server is ACTIVE.

    Seen on the all-in-one cloud under load.
    """

    def actions(self, finish):
        return [{"action": "create", "events": [
            {"event": "compute__do_build_and_run_instance",
             "start_time": "2026-11-22T20:03:29", "finish_time": finish}]}]

    def test_reads_again_until_every_event_finished(self):
        reads = iter([self.actions(None), self.actions(None),
                      self.actions("2026-11-22T20:03:41")])
        settled = api.settled_actions(lambda: next(reads), 0.01)
        self.assertEqual([], api.unfinished_events(settled))

    def test_gives_up_after_the_grace_time_with_what_it_has(self):
        settled = api.settled_actions(lambda: self.actions(None), 0.01,
                                      grace=0.05)
        self.assertEqual(1, len(api.unfinished_events(settled)))


class ImageFormsTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        rally_plugins.load()
        from rally_container_bench.task.contexts import openstack_guest
        cls.forms = staticmethod(openstack_guest.image_forms)
        cls.resolved = staticmethod(openstack_guest._resolved)

    def image(self):
        return guest.GuestImage("/cache/guest-abc", "abc")

    def test_vm_forms_link_kernel_and_ramdisk(self):
        forms = self.forms("qemu", self.image())
        self.assertEqual(["kernel", "ramdisk", "disk"],
                         [form[0] for form in forms])
        props = self.resolved(forms[2][4], {"kernel": "K", "ramdisk": "R"})
        self.assertEqual(("K", "R", "qemu"),
                         (props["kernel_id"], props["ramdisk_id"],
                          props["hypervisor_type"]))
        self.assertIn("init=/sbin/rcbench-init -- dhcp",
                      props["os_command_line"])
        self.assertEqual(("qcow2", "bare", "/cache/guest-abc/disk.qcow2"),
                         forms[2][1:4])

    def test_lxc_form_is_the_filesystem_alone(self):
        forms = self.forms("lxc", self.image())
        self.assertEqual(1, len(forms))
        self.assertEqual("exe", forms[0][4]["hw_vm_mode"])
        self.assertNotIn("kernel_id", forms[0][4])

    def test_docker_form_is_an_archive_named_at_upload(self):
        (form,) = self.forms("docker", self.image())
        self.assertEqual(("disk", "raw", "docker"), form[:3])
        self.assertEqual("docker", form[4]["hypervisor_type"])
        from rally_container_bench.task.contexts import openstack_guest
        self.assertEqual(openstack_guest.DOCKER_ARCHIVE, form[3])

    def test_names_are_lower_case_for_docker(self):
        from rally_container_bench.task.contexts import openstack_guest
        context = openstack_guest.GuestImage
        self.assertFalse(set(context.RESOURCE_NAME_ALLOWED_CHARACTERS)
                         - set("abcdefghijklmnopqrstuvwxyz0123456789"))

    def test_no_form_for_other_hypervisors(self):
        with self.assertRaisesRegex(ValueError, "ironic"):
            self.forms("ironic", self.image())


class FloatingIPTestCase(unittest.TestCase):
    """Stand-in neutronclient for floating IPs.

    The all-in-one cloud has no router, so floating IPs are not exercised
    against a real Neutron here.
    """

    def test_attached_at_active_and_deleted_with_the_server(self):
        nova_client, neutron = mock.Mock(), mock.Mock()
        nova_client.servers.get.return_value = mock.Mock(
            status="ACTIVE", id="id1",
            addresses={"net": [{"version": 4, "addr": "10.0.0.5"}]})
        neutron.list_ports.return_value = {"ports": [{"id": "port1"}]}
        neutron.create_floatingip.return_value = {"floatingip": {
            "id": "fip1", "floating_ip_address": "203.0.113.9"}}
        request = nova.BootRequest(image="img", flavor="fl", network="net",
                                   floating_network="ext")
        driver = nova.NovaDriver(nova_client, request, "KEY",
                                 conf(nova_poll_interval=0.05),
                                 neutron=neutron, network_name="net")
        instance = base.Instance(name="s1", id="id1")
        driver.wait_running(instance, timeout=30)
        self.assertEqual("203.0.113.9", instance.ssh_host)
        body = neutron.create_floatingip.call_args[0][0]["floatingip"]
        self.assertEqual(("ext", "port1"), (body["floating_network_id"],
                                            body["port_id"]))
        driver.delete(instance)
        neutron.delete_floatingip.assert_called_once_with("fip1")
        nova_client.servers.delete.assert_called_once_with("id1")


class FlavorTuningTestCase(unittest.TestCase):

    def test_extra_specs_name_the_tuned_platform(self):
        facts = nova_facts.flavor_tuning({"hw:mem_page_size": "large",
                                          "hw:cpu_policy": "dedicated",
                                          "quota:cpu_shares": "2048"})
        self.assertEqual("cpu_policy-dedicated+mem_page_size-large+"
                         "quota-cpu_shares-2048", facts["tuning"])
        self.assertEqual("hw:cpu_policy=dedicated, hw:mem_page_size=large, "
                         "quota:cpu_shares=2048",
                         facts["flavor_extra_specs"])
        platform = results.platform_of(
            dict(facts, driver="nova", runtime="qemu", acceleration="kvm"),
            "NovaInstances.boot_sysbench_delete", {})
        self.assertEqual("nova-qemu-kvm+cpu_policy-dedicated+"
                         "mem_page_size-large+quota-cpu_shares-2048",
                         platform.label)

    def test_a_plain_flavor_is_untuned(self):
        self.assertEqual({"tuning": "none"}, nova_facts.flavor_tuning({}))
        platform = results.platform_of(
            dict(nova_facts.flavor_tuning({}), driver="nova", runtime="lxc"),
            "NovaInstances.boot_sysbench_delete", {})
        self.assertEqual("nova-lxc", platform.label)

    def test_the_flavors_owner_is_no_tuning(self):
        owner = {"rcbench:task": "d24be210-93b9-4e49-a980-6a72c807754e"}
        self.assertEqual({"tuning": "none"}, nova_facts.flavor_tuning(owner))
        facts = nova_facts.flavor_tuning(
            dict(owner, **{"hw:cpu_policy": "shared"}))
        self.assertEqual(("cpu_policy-shared", "hw:cpu_policy=shared"),
                         (facts["tuning"], facts["flavor_extra_specs"]))


class SentAgainTestCase(unittest.TestCase):
    """A create that never reached the API is sent again, others not.

    The API is a stand-in (a callable raising keystoneauth's own
    exceptions); the real busy API: benchmarks/kek_ladder.py --cloud at
    32 (8 of 32 creates lost to connect timeouts before).
    """

    def setUp(self):
        patcher = mock.patch.object(api.time, "sleep")
        self.sleeps = patcher.start()
        self.addCleanup(patcher.stop)

    def api(self, *outcomes):
        calls = []

        def request():
            calls.append(1)
            outcome = outcomes[len(calls) - 1]
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        return request, calls

    def test_a_connection_never_made_is_sent_again(self):
        from keystoneauth1 import exceptions as ks
        request, calls = self.api(ks.ConnectTimeout("timed out"),
                                  ks.ConnectFailure("refused"), "server")
        self.assertEqual("server", api.sent(request, "creating s"))
        self.assertEqual(3, len(calls))

    def test_gives_up_after_its_attempts(self):
        from keystoneauth1 import exceptions as ks
        request, calls = self.api(*[ks.ConnectTimeout("timed out")] * 3)
        with self.assertRaises(ks.ConnectTimeout):
            api.sent(request, "creating s")
        self.assertEqual(api.CREATE_ATTEMPTS, len(calls))

    def test_a_request_that_may_have_arrived_is_not_sent_again(self):
        from keystoneauth1 import exceptions as ks
        for error in (ks.ConnectionError("reset"), ValueError("400")):
            request, calls = self.api(error, "server")
            with self.assertRaises(type(error)):
                api.sent(request, "creating s")
            self.assertEqual(1, len(calls))


class SiteImageTestCase(unittest.TestCase):
    """Stand-in novaclient: a site image's server that refuses the key.

    The real one is booted on the test cloud (tests/functional_openstack/
    test_site_image.py).
    """

    def driver(self, site_image, console="", console_error=None):
        client = mock.Mock()
        client.servers.get_console_output.return_value = console
        client.servers.get_console_output.side_effect = console_error
        request = nova.BootRequest(image="img", flavor="fl",
                                   ssh_user="debian", site_image=site_image,
                                   key_origin="the generated key pair")
        return nova.NovaDriver(client, request, "KEY", conf()), client

    def test_a_refused_key_names_cloud_init_not_a_rebuild(self):
        driver, _ = self.driver(True)
        executor = driver.executor(base.Instance("s1", "id1", "10.0.0.5"))
        self.assertEqual(nova.SITE_IMAGE_HINT, executor.refused_hint)
        self.assertEqual("the generated key pair", executor.key_origin)
        own, _ = self.driver(False)
        self.assertIn("images build --force", own.executor(
            base.Instance("s1", "id1", "10.0.0.5")).refused_hint)

    def test_a_failed_network_phase_reads_the_console(self):
        driver, client = self.driver(True, console="Debian login: ")
        instance = base.Instance("s1", "id1", "10.0.0.5")
        with mock.patch.object(nova.ssh.SshDriver, "wait_reachable",
                               side_effect=base.DriverError("refused")):
            with self.assertRaisesRegex(
                    base.DriverError,
                    "^refused. The console: .*shows no cloud-init"):
                driver.wait_reachable(instance, 5)
        client.servers.get_console_output.assert_called_once_with(
            "id1", length=300)
        broken, _ = self.driver(True, console_error=RuntimeError("403"))
        with mock.patch.object(nova.ssh.SshDriver, "wait_reachable",
                               side_effect=base.DriverError("refused")):
            with self.assertRaisesRegex(base.DriverError,
                                        "could not be read"):
                broken.wait_reachable(instance, 5)

    def test_the_projects_own_image_is_not_diagnosed(self):
        driver, client = self.driver(False)
        with mock.patch.object(nova.ssh.SshDriver, "wait_reachable",
                               side_effect=base.DriverError("refused")):
            with self.assertRaisesRegex(base.DriverError, "^refused$"):
                driver.wait_reachable(base.Instance("s", "i", "h"), 5)
        client.servers.get_console_output.assert_not_called()

    def test_a_refusal_while_cloud_init_runs_is_waited_out(self):
        from tests.unit.test_cloud_init import RAN
        running = RAN.splitlines()[0]
        driver, client = self.driver(True, console=running)
        instance = base.Instance("s1", "id1", "10.0.0.5")
        refused = nova.ssh.KeyRefusedError("refused")
        with mock.patch.object(nova.ssh.SshDriver, "wait_reachable",
                               side_effect=[refused, None]) as login:
            driver.wait_reachable(instance, 60)
        self.assertEqual(2, login.call_count)
        # done, and still refused: final, with the diagnosis
        client.servers.get_console_output.return_value = \
            RAN % "DataSourceNone"
        with mock.patch.object(nova.ssh.SshDriver, "wait_reachable",
                               side_effect=[refused, None]) as login:
            with self.assertRaisesRegex(base.DriverError,
                                        "found no datasource"):
                driver.wait_reachable(instance, 60)
        self.assertEqual(1, login.call_count)
