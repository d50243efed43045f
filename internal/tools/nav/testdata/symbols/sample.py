"""Module docstring."""

import os

MAX_SIZE = 100


# Loader loads.
@dataclass
class Loader:
    """Loads things.

Unindented docstring line inside the class.
"""

    def __init__(self, path):
        self.path = path

    def load(
        self,
        strict=False,
    ):
        if strict:
            return os.path.exists(self.path)

        return True


async def fetch(url):
    return url

def one_liner(): return 1
