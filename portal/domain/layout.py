"""How a graph's layout is drawn: a state's position (``x``, ``y``) is the top-left
corner of a box this size in the editor. The document page draws the same arrangement
smaller (``domain.diagram``), each state centred where the editor's box has its centre."""

STATE_BOX_WIDTH = 160
STATE_BOX_HEIGHT = 46
