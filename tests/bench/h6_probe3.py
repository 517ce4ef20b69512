import time
import cProfile, pstats
from portal.core.uow import unit_of_work
from portal.accounts.queries import mail_recipients_in


def test_probe(people):
    siti = people("siti")
    with unit_of_work(siti.org_id) as uow:
        s = uow.session
        for _ in range(3):
            t = time.perf_counter()
            for _ in range(200):
                mail_recipients_in(s, [siti.member_id])
            print("\nmail_recipients_in", (time.perf_counter() - t) / 200 * 1000, "ms")
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(200):
            mail_recipients_in(s, [siti.member_id])
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
