"""The Zun validators' decisions. The real Zun of the all-in-one cloud
runs them in tests/functional_openstack (an unknown runtime, bad via and
memory); the clients below are stand-ins for what that cloud cannot be:
an env without admin, an old Zun, a Zun without runtimes in its API."""

import types
import unittest
from unittest import mock

from rally.common import validation
from rally import plugins as rally_plugins

from rally_container_bench.task import zun_validators


def credential(version="1.40", runtimes=("runc",)):
    """A stand-in credential whose clients().zun() answers like Zun."""
    host = types.SimpleNamespace(uuid="h1")
    zun = mock.Mock()
    zun.api_version.get_string.return_value = version
    zun.hosts.list.return_value = [host]
    zun.hosts.get.return_value = types.SimpleNamespace(
        runtimes=list(runtimes))
    cred = mock.Mock()
    cred.clients.return_value.zun.return_value = zun
    return cred


def config(**args):
    return {"args": args, "contexts": {
        "rcbench_guest": {"hypervisor_type": "docker"}}}


class ZunValidatorsTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        rally_plugins.load()

    def check(self, validator, context, cfg):
        try:
            validator.validate(context, cfg, None, None)
        except validation.ValidationError as e:
            return str(e)
        return None

    def test_runtime_without_admin_names_the_policy(self):
        message = self.check(zun_validators.ZunRuntimeValidator(),
                             {"users": [{"credential": credential()}]},
                             config(runtime="runc"))
        self.assertIn("admin-only under Zun's default policy", message)
        self.assertIn("container:create:runtime", message)

    def test_no_runtime_needs_no_admin(self):
        self.assertIsNone(self.check(zun_validators.ZunRuntimeValidator(),
                                     {"users": []}, config()))

    def test_runtime_offered_or_not(self):
        context = {"admin": {"credential": credential(
            runtimes=("runc", "io.containerd.runc.v2"))}}
        self.assertIsNone(self.check(zun_validators.ZunRuntimeValidator(),
                                     context, config(runtime="runc")))
        message = self.check(zun_validators.ZunRuntimeValidator(), context,
                             config(runtime="kata-runtime"))
        self.assertIn("no Zun compute host offers it (they offer: "
                      "io.containerd.runc.v2, runc)", message)

    def test_runtime_on_a_zun_without_runtimes(self):
        context = {"admin": {"credential": credential(version="1.4")}}
        message = self.check(zun_validators.ZunRuntimeValidator(), context,
                             config(runtime="runc"))
        self.assertIn("predates runtimes", message)

    def test_old_zun_is_named(self):
        message = self.check(zun_validators.ZunReadyValidator(),
                             {"users": [{"credential": credential("1.12")}]},
                             config())
        self.assertIn("microversion 1.12 at most", message)

    def test_zun_missing_from_the_catalog(self):
        cred = mock.Mock()
        cred.clients.return_value.zun.side_effect = RuntimeError(
            "no 'container' endpoint")
        message = self.check(zun_validators.ZunReadyValidator(),
                             {"users": [{"credential": cred}]}, config())
        self.assertIn("Zun (service type 'container') is not usable",
                      message)

    def test_image_needs_the_docker_upload(self):
        cfg = config()
        cfg["contexts"]["rcbench_guest"] = {"hypervisor_type": "lxc"}
        message = self.check(zun_validators.ZunImageValidator(), {}, cfg)
        self.assertIn("hypervisor_type: docker", message)
        cfg["contexts"]["rcbench_guest"] = {"upload": False}
        message = self.check(zun_validators.ZunImageValidator(), {}, cfg)
        self.assertIn("image is required", message)
        self.assertIsNone(self.check(zun_validators.ZunImageValidator(), {},
                                     dict(cfg, args={"image": "mine"})))
        cfg["contexts"]["rcbench_guest"] = {"hypervisor_type": "docker"}
        message = self.check(zun_validators.ZunImageValidator(), {},
                             dict(cfg, args={"image_driver": "docker"}))
        self.assertIn("image is required with image_driver docker", message)


def stepped(concurrency, contexts=(), **args):
    """A workload config at ``concurrency`` with rcbench_guest and more."""
    cfg = config(**args)
    cfg["runner"] = {"type": "constant", "concurrency": concurrency}
    cfg["contexts"].update({name: {} for name in contexts})
    return cfg


class ZunPullPolicyTestCase(ZunValidatorsTestCase):
    """The image size is the test's: 300 MB, as the guest image."""

    def setUp(self):
        patcher = mock.patch.object(zun_validators, "image_megabytes",
                                    return_value=300.0)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.validator = zun_validators.ZunPullPolicyValidator()
        self.user = {"users": [{"credential": credential()}]}
        self.admin = dict(self.user, admin={"credential": credential()})

    def test_a_policy_without_admin_names_the_policy(self):
        message = self.check(self.validator, self.user,
                             stepped(1, image_pull_policy="ifnotpresent"))
        self.assertIn("admin-only", message)
        self.assertIn("container:create:image_pull_policy", message)
        self.assertIn("auto", message)

    def test_zuns_default_above_one_at_once_is_refused(self):
        # The shared-archive race: refused whatever the image's size
        message = self.check(self.validator, self.user, stepped(2))
        self.assertIn("2 Zun containers at once with Zun's default pull "
                      "policy, always (image_pull_policy not set)", message)
        self.assertIn("truncated by each new download", message)
        self.assertIn("zun_image_pull_policy: auto", message)
        # auto without the admin is Zun's default too: refused, saying so
        message = self.check(self.validator, self.user,
                             stepped(32, image_pull_policy="auto"))
        self.assertIn("image_pull_policy auto: no admin credentials",
                      message)
        message = self.check(self.validator, self.admin,
                             stepped(2, image_pull_policy="always"))
        self.assertIn("2 Zun containers at once with "
                      "image_pull_policy=always", message)

    def test_one_at_a_time_is_refused_only_where_its_load_does_not_fit(self):
        self.assertIsNone(self.check(self.validator, self.user, stepped(1)))
        self.assertIsNone(self.check(
            self.validator, self.admin,
            stepped(1, image_pull_policy="always")))
        with mock.patch.object(zun_validators, "image_megabytes",
                               return_value=6000.0):
            message = self.check(self.validator, self.admin,
                                 stepped(1, image_pull_policy="always"))
        # 6000 MB at 15 MB/s, over half of the 600 s boot timeout
        self.assertIn("about 400 s", message)
        self.assertIn("with image_pull_policy=always downloads the 6000 MB",
                      message)

    def test_auto_with_admin_needs_the_warmup_above_one(self):
        message = self.check(self.validator, self.admin,
                             stepped(32, image_pull_policy="auto"))
        self.assertIn("needs the rcbench_zun_warmup context", message)
        self.assertIsNone(self.check(
            self.validator, self.admin,
            stepped(32, contexts=["rcbench_zun_warmup"],
                    image_pull_policy="auto")))
        self.assertIsNone(self.check(
            self.validator, self.admin,
            stepped(1, image_pull_policy="ifnotpresent")))

    def test_an_image_docker_pulls_is_not_estimated(self):
        self.assertIsNone(self.check(
            self.validator, self.user,
            stepped(32, image_driver="docker", image="busybox")))
