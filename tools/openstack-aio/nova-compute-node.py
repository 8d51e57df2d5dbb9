"""nova-compute with a node name of its own and a memory size that stays.

    python3 nova-compute-node.py NODE [nova-compute arguments]

Two libvirt compute services on one machine share one libvirtd, whose
host name Nova takes as the node name; Placement needs a unique name per
node, so the second service could not register.

The memory: this machine's MemTotal grows while it runs (its own memory
is hot-plugged: 14.8, 18.0, 21.7, 23.0 GB were seen in one hour), and
each change makes the compute service write its MEMORY_MB inventory to
Placement. Written while 32 servers are being claimed at once, that
write loses to the claims' generation bumps (HTTP 409) until its retries
run out: ResourceProviderUpdateConflict in instance_claim, the build
fails, 1 of 32 seen. A real host's memory does not change; here it is
the size in RCBENCH_AIO_MEMORY_MB (default 20480), every time.
Test cloud only.
"""
import os
import sys

from nova.cmd import compute  # first: nova.cmd applies eventlet's patches
from nova.virt.libvirt import host

node = sys.argv.pop(1)
memory_mb = int(os.environ.get("RCBENCH_AIO_MEMORY_MB", "20480"))
host.Host.get_hostname = lambda self: node
host.Host.get_memory_mb_total = lambda self: memory_mb
sys.argv[0] = "nova-compute"
sys.exit(compute.main())
