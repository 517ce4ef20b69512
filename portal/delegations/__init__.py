"""Out-of-office cover: authority lent for a dated window, and the handover of one task."""
