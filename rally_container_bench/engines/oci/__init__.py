"""OCI runtimes: THE table of runtimes (runtimes.py: runc, crun, runsc ->
docker-*, podman-*, bare), bare runtimes on a bundle (bare.py, bundle.py),
gVisor's flags and facts (gvisor.py), what the docker and podman CLI engines
share (cli.py) and their containers (containers.py). The one engine layer
the other engine packages may import."""
