"""A numpy column that grows by doubling, so appends stay amortized O(1)."""

from __future__ import annotations

import numpy as np


class Column:
    def __init__(self, dtype: str | type, capacity: int = 1024) -> None:
        self._data = np.zeros(capacity, dtype=dtype)
        self.size = 0

    @property
    def view(self) -> np.ndarray:
        return self._data[: self.size]

    def _reserve(self, size: int) -> None:
        if size > len(self._data):
            self.reserve(max(size, 2 * len(self._data)))

    def reserve(self, capacity: int) -> None:
        """Room for `capacity` rows in one allocation (a load that knows its size copies each row
        once, instead of once per doubling). Rows past `size` are never read: not zeroed."""
        if capacity > len(self._data):
            bigger = np.empty(capacity, dtype=self._data.dtype)
            bigger[: self.size] = self._data[: self.size]
            self._data = bigger

    def append(self, value: object) -> None:
        self._reserve(self.size + 1)
        self._data[self.size] = value
        self.size += 1

    def extend(self, values: np.ndarray) -> None:
        self._reserve(self.size + len(values))
        self._data[self.size : self.size + len(values)] = values
        self.size += len(values)

    def __setitem__(self, index: int | np.ndarray, value: object) -> None:
        self.view[index] = value
