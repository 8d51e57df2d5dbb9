"""Commands that find, format and mount an attached volume inside a guest.

Pure: argv lists only, run through any Executor. The guest finds the
volume by its serial: Nova gives a virtio-blk disk the Cinder volume's id
as serial, which the guest kernel shows (its first 20 characters) in
/sys/block/<disk>/serial; the device name (vdb, vdc...) is the guest's
choice and not what Nova reports.
"""

import shlex

MOUNTPOINT = "/mnt/rcbench-volume"
VIRTIO_SERIAL_CHARS = 20


def serial_of(volume_id):
    return volume_id[:VIRTIO_SERIAL_CHARS]


def find_device_argv(volume_id):
    """Prints /dev/<disk> of the volume, nothing while it is not there."""
    script = (
        'for d in /sys/block/*; do '
        '[ "$(cat "$d/serial" 2>/dev/null)" = %s ] '
        '&& echo "/dev/${d##*/}"; done; true'
        % shlex.quote(serial_of(volume_id)))
    return ["sh", "-c", script]


def format_and_mount_argv(device, mountpoint=MOUNTPOINT):
    """ext4 with its inode tables and journal written now.

    mkfs.ext4's default leaves them to the kernel's ext4lazyinit thread,
    which would write the whole disk in the background during the tests.
    """
    script = ("mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 %s"
              " && mkdir -p %s && mount %s %s"
              % tuple(shlex.quote(a) for a in (device, mountpoint, device,
                                               mountpoint)))
    return ["sh", "-c", script]


def unmount_argv(mountpoint=MOUNTPOINT):
    return ["umount", mountpoint]


def parse_device(stdout):
    """The device find_device_argv printed, or None."""
    lines = [line.strip() for line in (stdout or "").splitlines()
             if line.strip().startswith("/dev/")]
    return lines[0] if len(lines) == 1 else None
