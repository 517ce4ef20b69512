"""Deadlines that act: the sweep that reminds, escalates, reassigns or fires a state's
automatic transition when its tasks are due, exactly once per effect."""
