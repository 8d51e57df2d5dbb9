"""fio as a workload: job specs, presets, argv, JSON output parsing."""
