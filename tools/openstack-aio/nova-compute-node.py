"""nova-compute with a node name of its own.

    python3 nova-compute-node.py NODE [nova-compute arguments]

Two libvirt compute services on one machine share one libvirtd, whose
host name Nova takes as the node name; Placement needs a unique name per
node, so the second service could not register. Test cloud only.
"""
import sys

from nova.cmd import compute  # first: nova.cmd applies eventlet's patches
from nova.virt.libvirt import host

node = sys.argv.pop(1)
host.Host.get_hostname = lambda self: node
sys.argv[0] = "nova-compute"
sys.exit(compute.main())
