"""What the tests against the all-in-one test cloud share.

tools/openstack-aio/setup.sh stands the cloud up (``tox -e
functional-openstack`` runs it first): four Nova compute hosts (two QEMU,
two libvirt-LXC) and the Zun host, each at an address of its own
(/etc/rcbench-aio/compute-hosts.json says how to log in). Without it the
tests skip, with the reason.
"""

import json
import os
import subprocess
import unittest

from tests.functional import helpers

AIO = "/etc/rcbench-aio"
TASK = os.path.join(helpers.TOP, "tasks", "kvm_vs_docker.yaml")
ARGS = os.path.join(helpers.TOP, "tasks", "args", "aio-quick.yaml")
# The test cloud runs its control plane (and the tests' Rally) on the
# CPUs of its compute hosts: 0.15-0.45 cores beside a test were measured
# on a host of one CPU. Foreign load above this limit is a neighbour's.
CLOUD_LIMIT = 0.6


def read_secrets():
    with open(os.path.join(AIO, "secrets")) as f:
        return dict(line.strip().split("=", 1) for line in f if "=" in line)


def compute_hosts():
    """The task argument compute_hosts that reaches the cloud's hosts."""
    with open(os.path.join(AIO, "compute-hosts.json")) as f:
        return json.load(f)


def admin_session():
    from keystoneauth1 import loading
    from keystoneauth1 import session
    loader = loading.get_plugin_loader("password")
    auth = loader.load_from_options(
        auth_url="http://127.0.0.1:5000/v3", username="admin",
        password=read_secrets()["ADMIN_PASS"], project_name="admin",
        user_domain_name="Default", project_domain_name="Default")
    return session.Session(auth=auth)


def rally_named(items, key="name"):
    """Names Rally generated (s_rally_<owner>_<random>) in a listing."""
    return sorted(getattr(i, key, None) or i.get(key, "") for i in items
                  if (getattr(i, key, None) or i.get(key, "") or "")
                  .startswith("s_rally_"))


def env_spec():
    """The Rally env spec of the cloud; SkipTest without the cloud."""
    spec = os.path.join(AIO, "rally-env.json")
    if not os.access(spec, os.R_OK):
        raise unittest.SkipTest("no all-in-one cloud here: run "
                                "tools/openstack-aio/setup.sh")
    return spec


def aio_rally_home(options=None):
    """A RallyHome whose env is the all-in-one cloud; SkipTest without it.

    options: its [container_bench] options, as helpers.RallyHome's.
    """
    spec = env_spec()
    home = helpers.RallyHome(options)
    # Rally prints the env spec (with the admin password): never shown.
    created = home.rally("env", "create", "--name", "aio", "--spec", spec,
                         check=False)
    if created.returncode != 0:
        home.close()
        raise AssertionError("rally env create from %s failed (output not "
                             "shown: it holds credentials)" % spec)
    return home


def leftovers():
    """What of a task's is still in the cloud: {kind: [names]}."""
    from glanceclient import client as glance_client
    from neutronclient.v2_0 import client as neutron_client
    from novaclient import client as nova_client
    from zunclient import client as zun_client
    session = admin_session()
    nova = nova_client.Client("2.1", session=session)
    glance = glance_client.Client("2", session=session)
    neutron = neutron_client.Client(session=session)
    images = list(glance.images.list())
    return {
        "servers": rally_named(nova.servers.list(
            search_opts={"all_tenants": 1})),
        "images": rally_named(images),
        # one guest image per task (rcbench_guest's shared upload)
        "shared images": sorted(i["name"] for i in images
                                if i.get("rcbench_task")),
        "flavors": [f.name for f in nova.flavors.list(is_public=None)
                    if f.name.startswith("rcbench-kek")],
        "security groups": rally_named(
            neutron.list_security_groups()["security_groups"]),
        "ports": [p["id"] for p in neutron.list_ports()["ports"]
                  if p["device_owner"].startswith("compute:")],
        "containers": rally_named(zun_client.Client(
            "1.latest", session=session).containers.list(
                all_projects=True)),
        # Key pairs belong to the task's (deleted) users: asked of Nova's
        # database, which the admin API cannot list across users.
        "keypairs": subprocess.run(
            ["mysql", "-N", "-e", "SELECT name FROM nova_api.key_pairs "
             "WHERE name LIKE 's\\_rally\\_%'"],
            capture_output=True, text=True, check=True).stdout.split(),
    }
