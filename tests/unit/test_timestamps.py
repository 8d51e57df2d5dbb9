"""One timestamp parser for every engine's clock (timestamps.epoch)."""

import unittest

from rally_container_bench.core import timestamps

# 2026-11-22T11:45:47Z, computed independently: date -u -d ... +%s
NOON_UTC = 1795347947


class EpochTestCase(unittest.TestCase):

    def test_docker_utc_with_nanoseconds(self):
        self.assertAlmostEqual(
            NOON_UTC + 0.0813963,
            timestamps.epoch("2026-11-22T11:45:47.0813963Z"), places=6)
        self.assertEqual(NOON_UTC, timestamps.epoch("2026-11-22T11:45:47Z"))

    def test_podman_local_offsets(self):
        # Podman on a host in Japan (TZ=Asia/Tokyo) and west of UTC: the
        # same instant as the UTC form.
        self.assertAlmostEqual(
            NOON_UTC + 0.123456789,
            timestamps.epoch("2026-11-22T20:45:47.123456789+09:00"),
            places=6)
        self.assertEqual(NOON_UTC,
                         timestamps.epoch("2026-11-22T06:45:47-05:00"))
        self.assertEqual(NOON_UTC,
                         timestamps.epoch("2026-11-22T17:15:47+0530"))

    def test_nova_and_zun_forms(self):
        # Servers: "Z"; launched_at: no zone, microseconds; action events:
        # neither zone nor fraction; Zun: a space instead of the T.
        self.assertEqual(NOON_UTC + 0.5,
                         timestamps.epoch("2026-11-22T11:45:47.500000"))
        self.assertEqual(NOON_UTC, timestamps.epoch("2026-11-22T11:45:47"))
        self.assertEqual(NOON_UTC, timestamps.epoch("2026-11-22 11:45:47"))
        self.assertEqual(NOON_UTC,
                         timestamps.epoch("2026-11-22T11:45:47+00:00"))

    def test_no_time(self):
        self.assertIsNone(timestamps.epoch(None))
        self.assertIsNone(timestamps.epoch(""))
        self.assertIsNone(timestamps.epoch("0001-01-01T00:00:00Z"))

    def test_garbage_is_refused(self):
        for text in ("yesterday", "2026-11-22", "2026-11-22T11:45:47+9"):
            with self.assertRaises(ValueError, msg=text):
                timestamps.epoch(text)
