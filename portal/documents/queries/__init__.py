"""Reading documents: one document and its page (``detail``), the lists a member sees
(``lists``), and the open tasks the inbox and the badge read (``tasks``)."""
