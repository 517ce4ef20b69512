"""Creating and revoking covers, each in one unit of work."""
