"""gunicorn reads this file when started in the checkout; the settings live in the
package (``portal/gunicorn_conf.py``) so that an installed release has them too."""

from portal.gunicorn_conf import *  # noqa: F403
