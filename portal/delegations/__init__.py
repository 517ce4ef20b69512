"""Out-of-office cover: a member's authority lent to a colleague for a dated window."""
