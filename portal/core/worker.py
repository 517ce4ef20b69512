"""The production worker: forks per job, with the app and job modules imported first."""

from __future__ import annotations

from rq import Queue, Worker
from rq.job import Job

from portal.core.db import db


class PortalWorker(Worker):
    """An RQ worker whose forked job process never shares the parent's DB sockets.

    The parent imports the app (and so every job module) before it forks, so each job
    starts warm; the child drops the inherited pool without closing the parent's
    connections (``close=False``) and opens its own.
    """

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        db.dispose(close=False)
        super().main_work_horse(job, queue)
