"""Keystone's service users, services and endpoints for the all-in-one cloud.

One process instead of one `openstack` command per item: each command
starts Python and authenticates again (~3-5 s here), and setup.sh needs
about sixty of them. Idempotent: what exists is kept, passwords are set
again. Reads the admin from OS_* (openrc) and the service users' password
from SERVICE_PASS (never from argv, which `ps` shows); the spec on stdin:

    user NAME [ROLE...]          admin on project "service", plus ROLEs
    service NAME TYPE URL        public, internal and admin endpoints
"""

import os
import sys

from keystoneauth1.identity import v3
from keystoneauth1 import session
from keystoneclient.v3 import client

REGION = "RegionOne"
REQUEST_S = 30
DOMAIN = "default"


def keystone():
    env = os.environ
    auth = v3.Password(auth_url=env["OS_AUTH_URL"],
                       username=env["OS_USERNAME"],
                       password=env["OS_PASSWORD"],
                       project_name=env["OS_PROJECT_NAME"],
                       user_domain_name=env["OS_USER_DOMAIN_NAME"],
                       project_domain_name=env["OS_PROJECT_DOMAIN_NAME"])
    # A bound on every request: a keystone whose workers die at start
    # (no fernet keys) accepted the connection and never answered, and
    # setup.sh waited 22 min (CI, 2026-12-05).
    return client.Client(session=session.Session(auth=auth,
                                                 timeout=REQUEST_S))


def first(items):
    return items[0] if items else None


def ensure_user(ks, name, password, project, roles):
    user = first(ks.users.list(name=name, domain=DOMAIN))
    if user is None:
        user = ks.users.create(name, domain=DOMAIN, password=password)
    else:
        ks.users.update(user, password=password)
    for role in roles:
        ks.roles.grant(role, user=user, project=project)


def ensure_service(ks, name, service_type, url):
    service = first(ks.services.list(type=service_type))
    if service is None:
        service = ks.services.create(name, type=service_type)
    if not ks.endpoints.list(service=service):
        for interface in ("public", "internal", "admin"):
            ks.endpoints.create(service, url, interface=interface,
                                region=REGION)


def main():
    ks = keystone()
    project = first(ks.projects.list(name="service", domain=DOMAIN)) \
        or ks.projects.create("service", DOMAIN)
    roles = {role.name: role for role in ks.roles.list()}
    password = os.environ["SERVICE_PASS"]
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "user":
            wanted = ["admin"] + words[2:]
            for role in wanted:
                if role not in roles:
                    roles[role] = ks.roles.create(role)
            ensure_user(ks, words[1], password, project,
                        [roles[role] for role in wanted])
        elif words[0] == "service" and len(words) == 4:
            ensure_service(ks, *words[1:])
        else:
            sys.exit("register.py: cannot read %r" % line.strip())


if __name__ == "__main__":
    main()
