"""OpenStack: Nova servers (nova.py), Zun containers (zun.py), Cinder
volumes (cinder.py), the guest disk inside a server (guest_disk.py)."""
