"""``portal bench …``: benchmarks measured side by side in one run. They may import any
feature; no feature imports them."""
