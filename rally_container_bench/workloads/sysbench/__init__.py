"""sysbench: test specs, command lines and output parsing (pure, no I/O).

A spec (spec.TestSpec, or a preset name from presets) becomes the argv of
the detected sysbench generation (command.build_argv); the output of the
run becomes metrics with units (parse.parse).
"""
