"""gVisor (runsc): the sandboxed OCI runtime, as the local engines use it.

runsc takes two choices that change what is measured, both recorded with
every result:

- its platform, how the sandbox's kernel (the Sentry) intercepts the
  application's system calls: ``ptrace`` works on any host; ``kvm``
  needs real hardware virtualization (not /dev/kvm under PVM).
- its network: ``host`` (hostinet: the Sentry uses the host kernel's
  network stack of the namespace it runs in, here the container's own
  netns, so Docker's bridge and port publishing still apply) or
  ``sandbox`` (gVisor's own netstack). Debian's runsc 20221219 decides
  that a namespace is the host's root one when
  /proc/sys/net/core/rmem_default exists in it; kernels since 6.x have
  that file in every netns, so there netstack refuses every container
  ("cannot run with network enabled in root network namespace").
"""

import subprocess

RUNTIME = "runsc"


def runtime_flags(conf):
    """runsc's global flags for this configuration."""
    return ["--platform=" + conf.runsc_platform,
            "--network=" + conf.runsc_network]


def version():
    """runsc's version line ("runsc version 0.0~20221219.0"), or None."""
    try:
        out = subprocess.run([RUNTIME, "--version"], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.splitlines()[0].strip() if out.strip() else None


def flag_values(flags):
    """{"platform": ..., "network": ...} of runsc flags.

    runsc's own defaults where a flag is absent: ptrace, sandbox.
    """
    values = {"platform": "ptrace", "network": "sandbox"}
    for flag in flags:
        name, _, value = flag.lstrip("-").partition("=")
        if name in values and value:
            values[name] = value
    return values


def facts_of(flags):
    """Environment entries of a runsc instance started with these flags."""
    values = flag_values(flags)
    if values["network"] == "host":
        network = ("gVisor hostinet in the container's network namespace "
                   "(runsc --network=host)")
    elif values["network"] == "none":
        network = "none (runsc --network=none)"
    else:
        network = "gVisor netstack (runsc --network=%s)" % values["network"]
    return {"gvisor_platform": values["platform"],
            "gvisor_network": network,
            "acceleration": "gvisor-" + values["platform"]}


def described(facts, flags):
    """A container driver's describe() facts, made those of runsc."""
    facts = dict(facts)
    facts.update(facts_of(flags))
    facts["network"] = "%s; %s" % (facts["network"],
                                   facts.pop("gvisor_network"))
    facts["engine_version"] = "%s, %s" % (facts["engine_version"],
                                          version() or "runsc")
    return facts
