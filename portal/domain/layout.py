"""How a graph's layout is drawn: a state's position (``x``, ``y``) is the top-left
corner of a box this size, in the editor and on the document page alike."""

STATE_BOX_WIDTH = 160
STATE_BOX_HEIGHT = 46
