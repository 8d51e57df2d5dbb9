"""Where an instance ran, and how the Rally host reaches that host.

On a cloud "the host" of a measurement is the instance's compute host:
its native twin runs there and its load is read there
(compute_host.ComputeHost),
never on the Rally host. ``compute_hosts`` (a task argument) says how
the Rally host logs in to each: one template for all, and overrides per
host name (as Nova's OS-EXT-SRV-ATTR:host or Zun's host give it)::

    compute_hosts:
      address: "{host}"        # default: the host's name
      port: 22
      user: root
      key_file: ~/.ssh/id_rsa
      sysbench: sysbench       # the native twin's executable there
      workdir: /tmp            # where the twin's files go (a private
                               # directory inside it, removed after)
      hosts:
        compute-2: {address: 192.0.2.12}

Each host is checked before anything boots (check()): a login works and
its sysbench is the guest image's version.
"""

import dataclasses
import os
import re

import yaml

from rally_container_bench.core import base
from rally_container_bench.core import ssh

#: the environment key by which native's results state that its host (the
#: Rally host) is the same hardware as the compute hosts: unpaired cloud
#: cells then get verdicts against it, labelled "across hosts, stated
#: identical" (NativeHost.sysbench's identical_to_compute_hosts)
STATED_IDENTICAL = "identical_to_compute_hosts"

DEFAULTS = {"address": "{host}", "port": 22, "user": "root",
            "key_file": "~/.ssh/id_rsa", "sysbench": "sysbench",
            "workdir": "/tmp"}
_ACCESS_KEYS = {"address": str, "port": int, "user": str, "key_file": str,
                "sysbench": str, "workdir": str}
SCHEMA = {
    "type": ["object", "null"],
    "properties": dict(
        {key: {"type": "integer" if kind is int else "string"}
         for key, kind in _ACCESS_KEYS.items()},
        hosts={"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": False,
            "properties": {key: {"type": "integer" if kind is int
                                 else "string"}
                           for key, kind in _ACCESS_KEYS.items()}}}),
    "additionalProperties": False,
}
_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?)")


def host_kind(service, hypervisor_type=None):
    """The kind of compute host a cell's instances land on.

    qemu (Nova's KVM and QEMU hosts alike: one hypervisor type), lxc,
    docker (nova-docker), zun: a cloud's A/A runs on each kind
    (ComputeHosts.against_twin, native-aa-on-<kind>).
    """
    if service == "zun":
        return "zun"
    return "qemu" if hypervisor_type in (None, "kvm") else hypervisor_type


class ComputeHostError(ValueError):
    """A compute host cannot serve as the baseline; the message says why."""


@dataclasses.dataclass(frozen=True)
class Access:
    host: str
    address: str
    port: int
    user: str
    key_file: str
    sysbench: str
    workdir: str

    def describe(self):
        return "%s@%s:%d" % (self.user, self.address, self.port)


def parse(spec):
    """The compute_hosts argument checked: {key: value, "hosts": {...}}."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise ComputeHostError(
            "compute_hosts is a mapping (address, port, user, key_file, "
            "sysbench, workdir, hosts), not %r" % (spec,))
    unknown = sorted(set(spec) - set(_ACCESS_KEYS) - {"hosts"})
    if unknown:
        raise ComputeHostError(
            "compute_hosts: unknown key(s) %s; known: %s"
            % (", ".join(unknown),
               ", ".join(sorted(_ACCESS_KEYS) + ["hosts"])))
    for host, given in [(None, spec)] + sorted(
            (spec.get("hosts") or {}).items()):
        where = "compute_hosts" + ("" if host is None else ".hosts." + host)
        if not isinstance(given, dict):
            raise ComputeHostError("%s is a mapping, not %r" % (where, given))
        for key, value in given.items():
            if key == "hosts" and host is None:
                continue
            kind = _ACCESS_KEYS.get(key)
            if kind is None:
                raise ComputeHostError("%s: unknown key %s" % (where, key))
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ComputeHostError("%s.%s is a %s, not %r" % (
                    where, key, kind.__name__, value))
        try:
            given.get("address", "").format(host="h")
        except (KeyError, IndexError, ValueError) as e:
            raise ComputeHostError(
                "%s.address: only {host} may be filled in (%s)" % (where, e))
    return spec


#: what a Rally env's extras may hold: compute_hosts, or a file of them
ENV_EXTRA = "compute_hosts"
#: the guide's section that explains them
GUIDE = ("the guide's 'Running against your cloud', section 'Native twins "
         "on the compute hosts'")


def load(path):
    """compute_hosts from a YAML or JSON file, checked (parse)."""
    try:
        with open(os.path.expanduser(path)) as f:
            spec = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise ComputeHostError("compute hosts file %s: %s" % (path, e))
    if not isinstance(spec, dict):
        raise ComputeHostError("compute hosts file %s holds no mapping (%s)"
                               % (path, EXAMPLE))
    return parse(spec)


def resolve(task_args, path=None, env_extras=None):
    """task_args with compute_hosts, and where they came from.

    --compute-hosts FILE wins, then the task args' own, then the Rally
    env's extras (compute_hosts: a mapping or a file's path), as the test
    cloud's env carries them. (task_args, None) where none is given.
    """
    if path:
        return dict(task_args, compute_hosts=load(path)), path
    if task_args.get("compute_hosts") is not None:
        return task_args, "the task args"
    extra = (env_extras or {}).get(ENV_EXTRA)
    if isinstance(extra, str):
        return dict(task_args, compute_hosts=load(extra)), (
            "%s (the Rally env's extras)" % extra)
    if isinstance(extra, dict):
        return dict(task_args, compute_hosts=parse(extra)), (
            "the Rally env's extras")
    return task_args, None


EXAMPLE = ("e.g. {user: root, key_file: ~/.ssh/compute, sysbench: "
           "/usr/bin/sysbench, hosts: {compute-2: {address: 192.0.2.12}}}")


def access(spec, host):
    """How to reach compute host ``host`` (an Access)."""
    merged = dict(DEFAULTS)
    merged.update({k: v for k, v in spec.items() if k != "hosts"})
    merged.update((spec.get("hosts") or {}).get(host) or {})
    merged["address"] = merged["address"].format(host=host)
    return Access(host=host, **merged)


def executor(found):
    """An SSH executor on the host of Access ``found``."""
    try:
        return ssh.remote_host(found.address, found.port, found.user,
                               found.key_file, name=found.host)
    except OSError as e:
        raise ComputeHostError("compute host %s: key file %s: %s"
                               % (found.host, found.key_file, e))


def version_of(text):
    """"sysbench 1.0.20 (using ...)" -> "1.0.20" (None if there is none)."""
    match = _VERSION.search(text or "")
    return match.group(1) if match else None


# One login attempt at validation: a compute host on the cloud's network
# answers within a second; one that is down or firewalled never does, and
# the twins' own three attempts of 30 s each made an operator wait ~90 s
# per such host before the error.
LOGIN_TIMEOUT_S = 15


def check(found, guest_version, timeout=60):
    """Log in to the host and compare its sysbench with the guest's.

    Raises ComputeHostError naming the host, its address and what is wrong.
    """
    target = executor(found)
    where = "compute host %s (%s)" % (found.host, found.describe())
    # the login run() then uses: one SSH connection per host
    why_not, _ = target.login(LOGIN_TIMEOUT_S)
    if why_not:
        raise ComputeHostError("%s: no login within %d s: %s"
                               % (where, LOGIN_TIMEOUT_S, why_not))
    try:
        result = target.run([found.sysbench, "--version"], timeout)
    except base.DriverError as e:
        raise ComputeHostError("%s: no login: %s" % (where, e))
    finally:
        target.close()
    if result.exit_code != 0:
        raise ComputeHostError("%s: %s --version failed (exit %d): %s" % (
            where, found.sysbench, result.exit_code,
            (result.stderr or result.stdout).strip()[-300:]))
    there = version_of(result.stdout)
    wanted = version_of(guest_version)
    if wanted and there != wanted:
        raise ComputeHostError(
            "%s has sysbench %s, the guest image's is %s: the native twin "
            "must run the same version (install it there, or point "
            "compute_hosts.sysbench at one)" % (where, there, wanted))
    return there
