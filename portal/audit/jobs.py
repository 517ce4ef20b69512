"""(being built) The nightly verification of every organization's chains."""

from __future__ import annotations
