"""The org chart: units, positions (seats) and who sits in them, when."""
