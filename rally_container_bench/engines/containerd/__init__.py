"""containerd: ctr (ctr.py) and CRI through crictl (cri.py), rcbench's own
containerd daemon (daemon.py). Lifecycle view only."""
