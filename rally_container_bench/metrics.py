"""What every workload parser returns (sysbench, fio). Pure: no I/O."""

import dataclasses


class ParseError(ValueError):
    """The text is no result the parser understands; ``raw`` holds it."""

    def __init__(self, message, raw):
        super().__init__(message)
        self.raw = raw


@dataclasses.dataclass(frozen=True)
class Metric:
    value: float
    unit: str
