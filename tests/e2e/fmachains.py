"""The shape of FMA chains' IPC that t1201 and t1210 hold loopkit asm's
figures to (PYTHONPATH="$E2E_DIR" python3 ...): N independent chains of
a latency-4 FMA give min(N/4, peak) instructions per cycle."""


def check_shape(name, ipc, peak, top_n=10):
    """ipc[n - 1]: the best figure at n = 1..10 chains. From 5 chains to
    top_n, out of the latency regime (1.1 x 4 chains' figure: chains that
    were not independent stay at 4 chains'); with a peak, never 5 % above
    min(N/4, peak), within 5 % of it up to 4 chains, and the peak reached
    within 5 % by the best of the chain counts from 4 x peak on. Between
    the bounds a core settles in one of several states, so no more is
    asked there (t1201, README.md of examples/case-studies)."""
    for n in range(5, top_n + 1):
        assert ipc[n - 1] >= 1.1 * ipc[3], \
            "%s N=%d: %.3f, not above 4 chains' %.3f" % (name, n, ipc[n - 1],
                                                         ipc[3])
    if peak <= 0:
        return
    for n, x in enumerate(ipc, 1):
        want = min(n / 4, peak)
        assert x <= want * 1.05, \
            "%s N=%d: %.3f above the bound %g" % (name, n, x, want)
        if n <= 4:
            assert x >= want * 0.95, "%s N=%d: %.3f, want %g" % (name, n, x,
                                                                want)
    top = max(ipc[int(4 * peak) - 1:])
    assert top >= 0.95 * peak, "%s: not saturated at %g (best %.3f)" % (
        name, peak, top)
