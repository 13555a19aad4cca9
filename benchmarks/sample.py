"""A tiny sampling profiler: SIGPROF every 2 ms of CPU, counts of each function on the stack."""
import collections, signal, sys, os, atexit
incl = collections.Counter(); self_ = collections.Counter(); n = [0]
def key(f):
    c = f.f_code
    return f"{os.path.basename(c.co_filename)}:{c.co_firstlineno}({c.co_name})"
def handler(sig, frame):
    n[0] += 1
    seen = set()
    self_[key(frame) + ' <- ' + (key(frame.f_back) if frame.f_back else '') + ' <- ' + (key(frame.f_back.f_back) if frame.f_back and frame.f_back.f_back else '')] += 1
    while frame is not None:
        k = key(frame)
        if k not in seen:
            seen.add(k); incl[k] += 1
        frame = frame.f_back
def report():
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    out = open(os.environ.get("SAMPLE_OUT", "sample.txt"), "w")
    out.write(f"{n[0]} samples\n-- inclusive\n")
    for k, v in incl.most_common(90): out.write(f"{100*v/n[0]:6.1f}% {k}\n")
    out.write("-- self\n")
    for k, v in self_.most_common(50): out.write(f"{100*v/n[0]:6.1f}% {k}\n")
atexit.register(report)
signal.signal(signal.SIGPROF, handler)
signal.setitimer(signal.ITIMER_PROF, 0.002, 0.002)
from atoll.cli import main
sys.exit(main(sys.argv[1:]))
