"""Delete what killed Rally runs left in the all-in-one cloud.

setup.sh runs it when it has just started the cloud's services, so no
task can be running against it: Nova servers and Cinder volumes Rally
named, the flavors and shared guest images tasks/kvm_vs_docker.yaml
makes, Zun containers Rally named, then the projects and users of Rally's
users context. A Rally killed mid-task (Ctrl-C twice, a CI job stopped)
leaves them; left, a server goes on running under TCG beside every later
measurement, and a test that counts flavors or volumes finds a stranger's
(CI, 2026-11-29). Each deletion is printed. Reads the admin from OS_*
(openrc); Cinder's volumes unless AIO_CINDER=0 (a cloud without Cinder,
as common.sh's cinder_enabled).
"""

import os
import re
import sys
import time

from cinderclient import client as cinder_client
from glanceclient import client as glance_client
from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session
from keystoneclient.v3 import client as keystone_client
from novaclient import client as nova_client

# rally.common.utils.generate_random_name: s_ (scenario) or c_ (context)
RALLY_NAME = re.compile(r"^[a-z]_rally_[0-9A-Za-z]{8}_[0-9A-Za-z]{8}$")
# tasks/kvm_vs_docker.yaml's flavors, task/contexts/guest_share.py's images
FLAVOR_NAME = re.compile(r"^rcbench-kek-(tuned-)?[0-9a-f]{6}$")
IMAGE_NAME = re.compile(r"^rcbench-guest-[0-9a-f-]{36}-")
GONE_TIMEOUT_S = 120


def session():
    env = os.environ
    return ks_session.Session(auth=v3.Password(
        auth_url=env["OS_AUTH_URL"], username=env["OS_USERNAME"],
        password=env["OS_PASSWORD"], project_name=env["OS_PROJECT_NAME"],
        user_domain_name=env["OS_USER_DOMAIN_NAME"],
        project_domain_name=env["OS_PROJECT_DOMAIN_NAME"]))


def say(kind, name, ident):
    print("removed a killed run's %s %s (%s)" % (kind, name, ident))


def wait_gone(what, listed):
    deadline = time.monotonic() + GONE_TIMEOUT_S
    while listed():
        if time.monotonic() > deadline:
            sys.exit("leftovers.py: %s still there after %d s"
                     % (what, GONE_TIMEOUT_S))
        time.sleep(1)


def servers(nova):
    def rallys():
        return [s for s in nova.servers.list(search_opts={"all_tenants": 1})
                if RALLY_NAME.match(s.name)]
    for server in rallys():
        nova.servers.delete(server)
        say("server", server.name, server.id)
    wait_gone("servers", rallys)


def volumes(cinder):
    def rallys():
        return [v for v in cinder.volumes.list(
            search_opts={"all_tenants": 1}) if RALLY_NAME.match(v.name or "")]
    for volume in rallys():
        if volume.attachments:
            cinder.volumes.detach(volume)
        cinder.volumes.delete(volume, cascade=True)
        say("volume", volume.name, volume.id)
    wait_gone("volumes", rallys)


def flavors(nova):
    for flavor in nova.flavors.list(is_public=None):
        if FLAVOR_NAME.match(flavor.name):
            nova.flavors.delete(flavor)
            say("flavor", flavor.name, flavor.id)


def images(glance):
    for image in list(glance.images.list()):
        if IMAGE_NAME.match(image.get("name") or ""):
            glance.images.delete(image["id"])
            say("image", image["name"], image["id"])


def zun_containers(sess):
    try:
        from zunclient import client as zun_client
    except ImportError:
        return  # no Zun client here: rcbench cleanup --env removes them
    try:
        zun = zun_client.Client("1.12", session=sess)
        found = zun.containers.list(all_projects=True)
    except Exception as e:  # no Zun in this cloud
        print("leftovers.py: Zun not asked (%s)" % e)
        return
    for container in found:
        if RALLY_NAME.match(container.name or ""):
            zun.containers.delete(container.uuid, force=True, stop=True,
                                  all_projects=True)
            say("Zun container", container.name, container.uuid)


def projects_and_users(keystone):
    for user in keystone.users.list():
        if RALLY_NAME.match(user.name):
            keystone.users.delete(user)
            say("user", user.name, user.id)
    for project in keystone.projects.list():
        if RALLY_NAME.match(project.name):
            keystone.projects.delete(project)
            say("project", project.name, project.id)


def main():
    sess = session()
    nova = nova_client.Client("2.1", session=sess)
    servers(nova)
    if os.environ.get("AIO_CINDER", "1") != "0":
        volumes(cinder_client.Client("3", session=sess))
    flavors(nova)
    images(glance_client.Client("2", session=sess))
    zun_containers(sess)
    projects_and_users(keystone_client.Client(session=sess))


if __name__ == "__main__":
    main()
