"""What every workload parser returns (sysbench, fio). Pure: no I/O."""

import dataclasses
import re


class ParseError(ValueError):
    """The text is no result the parser understands; ``raw`` holds it."""

    def __init__(self, message, raw):
        super().__init__(message)
        self.raw = raw


@dataclasses.dataclass(frozen=True)
class Metric:
    value: float
    unit: str


NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def check_name(name, error):
    """A test's optional name: lowercase letters, digits, - and _."""
    if name is not None and not NAME_PATTERN.match(str(name)):
        raise error("name must be lowercase letters, digits, - and _, "
                    "not %r" % (name,))


def spec_from_dict(spec_class, fields, error, what, required=()):
    """spec_class(**fields), naming unknown and missing fields."""
    if not isinstance(fields, dict):
        raise error("%s is a mapping, not %r" % (what, fields))
    known = {f.name for f in dataclasses.fields(spec_class)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise error("unknown parameter(s) of %s: %s; known: %s"
                    % (what, ", ".join(unknown), ", ".join(sorted(known))))
    missing = [name for name in required if name not in fields]
    if missing:
        raise error("%s needs %s" % (what, ", ".join(missing)))
    return spec_class(**fields)
