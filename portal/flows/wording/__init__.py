"""How flows are said to people, in the reader's language: grants as sentences
(``grants``), the names of roles, gates and other choices (``vocabulary``), every word
the editor's script shows (``editor``), and what publishing would change (``changes``)."""
