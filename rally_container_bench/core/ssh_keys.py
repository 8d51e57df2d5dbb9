"""A key pair made for one task, where no guest image brings one.

A site's own image authorizes no key of this project: the key reaches it
as a Nova key pair, through cloud-init (the metadata service or a config
drive). The private half stays on the Rally host, in a directory only
root reads, for as long as the task runs.
"""

import os
import shutil
import tempfile

from cryptography.hazmat.primitives.asymmetric import ed25519
from cryptography.hazmat.primitives import serialization

COMMENT = "rally-container-bench generated key"


class KeyPair(object):
    """A private key file and its public key (OpenSSH's one-line form)."""

    def __init__(self, directory, private_key_file, public_key):
        self.dir = directory
        self.private_key_file = private_key_file
        self.public_key = public_key


def remove(directory):
    """Remove a generated key pair's directory (gone already: nothing)."""
    shutil.rmtree(directory, ignore_errors=True)


def generate(prefix="rcbench-keypair-"):
    """A new Ed25519 key pair in a new private directory (mode 0700)."""
    key = ed25519.Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.OpenSSH,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode()
    directory = tempfile.mkdtemp(prefix=prefix)
    path = os.path.join(directory, "id_ed25519")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(private)
    public = "%s %s" % (public, COMMENT)
    with open(path + ".pub", "w") as f:
        f.write(public + "\n")
    return KeyPair(directory, path, public)
