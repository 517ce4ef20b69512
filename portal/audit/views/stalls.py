"""(being built)"""

from __future__ import annotations
