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
