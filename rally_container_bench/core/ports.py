"""Loopback ports for instances, reserved across processes.

A port is chosen by binding port 0 and closing the socket; the engine
(docker-proxy, QEMU's hostfwd, an sshd) binds it a moment later. Between
the two another process may be handed the same port: Rally's runner runs
iterations in several processes, so a lock in one process protects
nothing. Each chosen port is therefore leased in a host-wide directory
(<daemon_state_dir>/ports, one file per port, created exclusively): a port
leased by anyone in the last LEASE_S seconds is never chosen again until
the lease is old. By then the engine holds it, and the kernel does not
hand out a bound port.
"""

import errno
import os
import socket
import tempfile
import time

LEASE_S = 300.0
_TRIES = 64


def _probe():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lease_dir(conf):
    """The host-wide lease directory, made if missing."""
    return state_subdir(conf, "ports")


def state_subdir(conf, name):
    """<daemon_state_dir>/<name>, shared by every process of the host.

    A user who may not write daemon_state_dir (not root) gets a directory
    of their own: their processes still share it with each other.
    """
    directory = os.path.join(conf.daemon_state_dir, name)
    try:
        os.makedirs(directory, exist_ok=True)
        writable = os.access(directory, os.W_OK)
    except PermissionError:
        writable = False
    if not writable:
        directory = os.path.join(tempfile.gettempdir(),
                                 "rcbench-%s-%d" % (name, os.getuid()))
        os.makedirs(directory, exist_ok=True)
    return directory


def _take(path, now, lease_s):
    """True when this process now holds the lease at path."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        return True
    except FileExistsError:
        pass
    try:
        if now - os.stat(path).st_mtime < lease_s:
            return False
        # An old lease: whoever renames it first takes it over.
        stale = "%s.stale.%d" % (path, os.getpid())
        os.rename(path, stale)
        os.unlink(stale)
    except OSError:
        return False
    return _take(path, now, lease_s)


def reserve(conf, lease_s=LEASE_S, probe=_probe):
    """A free 127.0.0.1 port that no other process was given lately."""
    directory = lease_dir(conf)
    now = time.time()
    for _ in range(_TRIES):
        port = probe()
        if _take(os.path.join(directory, str(port)), now, lease_s):
            return port
    raise OSError(errno.EADDRINUSE, "no free loopback port in %d tries "
                  "(leases in %s)" % (_TRIES, directory))


def prune(conf, lease_s=LEASE_S):
    """Remove leases older than lease_s (rcbench engines stop)."""
    directory = lease_dir(conf)
    now = time.time()
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        try:
            if now - os.stat(path).st_mtime >= lease_s:
                os.unlink(path)
        except OSError:
            continue
