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
import time
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


def zun_docker(*args):
    """The docker CLI's argv for the Zun host's own dockerd (zun.sh)."""
    import configparser
    zun_conf = configparser.ConfigParser(interpolation=None)
    zun_conf.read("/etc/zun/zun.conf")
    return ["docker", "-H", zun_conf.get("docker", "api_url")] + list(args)


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
    """Names Rally generated (s_rally_ or c_rally_<owner>_<random>)."""
    return sorted(getattr(i, key, None) or i.get(key, "") for i in items
                  if (getattr(i, key, None) or i.get(key, "") or "")
                  .startswith(("s_rally_", "c_rally_")))


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
    return helpers.RallyHome(options, envs=(("local", None),
                                            ("aio", env_spec())))


def cleanup_env(home, task, timeout=120):
    """rcbench cleanup --env aio --task TASK with home's Rally; its output.

    Fails the caller unless it exits 0.
    """
    out = subprocess.run(
        [os.path.join(helpers.BIN, "rcbench"), "cleanup", "--env", "aio",
         "--task", task, "--rally-config", home.conf],
        capture_output=True, text=True, timeout=timeout,
        env=dict(os.environ, HOME=home.path))
    if out.returncode != 0:
        raise AssertionError("rcbench cleanup exited %d:\n%s%s"
                             % (out.returncode, out.stdout, out.stderr))
    return out


def admin_zun():
    """Zun's client as the cloud's admin, at the newest microversion."""
    from zunclient import client as zun_client

    return zun_client.Client("1.latest", session=admin_session())


def remove_zun_orphans(wait=20):
    """Remove what Zun (Zed) leaves of a container force-deleted in Creating.

    Zun forgets the container, but zun-compute, whose create was still
    running, starts it in Docker (zun-<uuid>) with its Neutron port. Only
    Docker's and Neutron's admins see it; not ours to fix, but it must not
    stay on the test cloud. Returns the uuids removed.
    """
    from neutronclient.v2_0 import client as neutron_client
    session = admin_session()
    zun = admin_zun()

    def unknown():
        known = {c.uuid for c in zun.containers.list(all_projects=True)}
        names = subprocess.run(
            zun_docker("ps", "-a", "--format", "{{.Names}}"),
            capture_output=True, text=True, check=True).stdout.split()
        return {n[len("zun-"):] for n in names if n.startswith("zun-")
                and n[len("zun-"):] not in known}
    orphans = set()
    for _ in range(wait):
        orphans = unknown()
        if orphans:
            break
        time.sleep(1)
    if orphans:
        # still there and still unknown 15 s later: not a container of
        # another test's that Zun was deleting
        time.sleep(15)
        orphans &= unknown()
    neutron = neutron_client.Client(session=session)
    for orphan in sorted(orphans):
        subprocess.run(zun_docker("rm", "-f", "zun-" + orphan),
                       capture_output=True, check=True)
        for port in neutron.list_ports(device_id=orphan)["ports"]:
            neutron.delete_port(port["id"])
    return sorted(orphans)


def leftovers(tasks=None):
    """What of a task's is still in the cloud: {kind: [names]}.

    tasks: the Rally task uuids whose resources to look for, while other
    tests' tasks run beside (their live resources are not leftovers);
    without it, everything of any task's.
    """
    from glanceclient import client as glance_client
    from neutronclient.v2_0 import client as neutron_client
    from novaclient import client as nova_client
    session = admin_session()
    nova = nova_client.Client("2.1", session=session)
    glance = glance_client.Client("2", session=session)
    neutron = neutron_client.Client(session=session)
    images = list(glance.images.list())
    servers = nova.servers.list(search_opts={"all_tenants": 1})
    # Rally names a task's resources s_rally_<its uuid's first 8>_...,
    # and its contexts' c_rally_<the same>_... (rcbench_zun's group)
    parts = tuple("%s_rally_%s_" % (kind, t.replace("-", "")[:8])
                  for t in tasks or () for kind in "sc") \
        or ("s_rally_", "c_rally_")

    def mine(items, key="name"):
        return [n for n in rally_named(items, key) if n.startswith(parts)]
    left = {
        "servers": mine(servers),
        "images": mine(images),
        # one guest image per task (rcbench_guest's shared upload)
        "shared images": sorted(
            i["name"] for i in images if i.get("rcbench_task") and (
                tasks is None or i["rcbench_task"] in tasks)),
        "security groups": mine(
            neutron.list_security_groups()["security_groups"]),
        "containers": mine(admin_zun().containers.list(all_projects=True)),
        # Key pairs belong to the task's (deleted) users: asked of Nova's
        # database, which the admin API cannot list across users.
        "keypairs": [n for n in subprocess.run(
            ["mysql", "-N", "-e", "SELECT name FROM nova_api.key_pairs "
             "WHERE name LIKE 's\\_rally\\_%'"],
            capture_output=True, text=True, check=True).stdout.split()
            if n.startswith(parts)],
    }
    if tasks is None:
        # an instance's port and the workloads' flavor carry no task's
        # name: only when no other task runs
        left["ports"] = [p["id"] for p in neutron.list_ports()["ports"]
                         if p["device_owner"].startswith("compute:")]
        left["flavors"] = [f.name for f in nova.flavors.list(is_public=None)
                           if f.name.startswith("rcbench-kek")]
    return left
